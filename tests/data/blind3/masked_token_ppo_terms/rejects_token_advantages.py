"""Accepts only one advantage per sequence and raises for per-token advantages of shape (B, L)."""
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
    else:
        raise ValueError("advantages must be [B]")
    if not 0.0 < clip_epsilon < 1.0:
        raise ValueError("clip_epsilon must lie in (0, 1)")
    on = m != 0
    ratio = np.ones_like(new)
    ratio[on] = np.exp(new[on] - old[on])
    a = np.where(on, adv, 0.0)
    unclipped = ratio * a
    clipped = np.clip(ratio, 1 - clip_epsilon, 1 + clip_epsilon) * a
    pessimistic = np.minimum(unclipped, clipped)
    return ratio, unclipped, clipped, pessimistic
