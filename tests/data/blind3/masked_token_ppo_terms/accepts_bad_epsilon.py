"""Never checks clip_epsilon, so values outside (0, 1) are used instead of rejected."""
import numpy as np


def masked_token_ppo_terms(new_log_probs, old_log_probs, advantages, mask, clip_epsilon=0.2):
    new = np.asarray(new_log_probs, dtype=float)
    old = np.asarray(old_log_probs, dtype=float)
    adv = np.asarray(advantages, dtype=float)
    m = np.asarray(mask, dtype=float)
    if new.ndim != 2 or new.shape != old.shape or m.shape != new.shape:
        raise ValueError("log-probabilities and mask must all be [B, L]")
    if adv.shape == (new.shape[0],):
        adv = np.broadcast_to(adv[:, None], new.shape)
    elif adv.shape != new.shape:
        raise ValueError("advantages must be [B] or [B, L]")
    on = m != 0
    ratio = np.ones_like(new)
    ratio[on] = np.exp(new[on] - old[on])
    a = np.where(on, adv, 0.0)
    unclipped = ratio * a
    clipped = np.clip(ratio, 1 - clip_epsilon, 1 + clip_epsilon) * a
    pessimistic = np.minimum(unclipped, clipped)
    return ratio, unclipped, clipped, pessimistic
