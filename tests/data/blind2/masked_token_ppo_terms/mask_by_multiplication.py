"""computes the terms on all positions and multiplies them by the mask, so -inf or nan log-probabilities at masked positions leak nan into the terms"""

import numpy as np


def masked_token_ppo_terms(new_log_probs, old_log_probs, advantages, mask, clip_epsilon=0.2):
    new = np.asarray(new_log_probs, dtype=float)
    old = np.asarray(old_log_probs, dtype=float)
    adv = np.asarray(advantages, dtype=float)
    m = np.asarray(mask, dtype=float)
    if new.ndim != 2 or old.shape != new.shape or m.shape != new.shape:
        raise ValueError("log-probabilities and mask must be [B, L]")

    if adv.shape == (new.shape[0],):
        adv = adv[:, None]
    elif adv.shape != new.shape:
        raise ValueError("advantages must be [B] or [B, L]")
    adv = np.broadcast_to(adv, new.shape)

    if not 0.0 < clip_epsilon < 1.0:
        raise ValueError("clip_epsilon must lie in (0, 1)")

    on = m != 0
    raw = np.exp(new - old)
    ratio = np.where(on, raw, 1.0)
    unclipped = raw * adv * m
    clipped = np.clip(raw, 1 - clip_epsilon, 1 + clip_epsilon) * adv * m
    return ratio, unclipped, clipped, np.minimum(unclipped, clipped)
