"""computes the token ratio as exp(old - new) instead of exp(new - old)"""

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
    log_ratio = np.subtract(old, new, out=np.zeros_like(new), where=on)
    ratio = np.exp(log_ratio)
    a = np.where(on, adv, 0.0)

    unclipped = ratio * a
    clipped = np.clip(ratio, 1 - clip_epsilon, 1 + clip_epsilon) * a
    return ratio, unclipped, clipped, np.minimum(unclipped, clipped)
