"""Exponentiates the raw log-ratio before masking (ratio = exp(new - old) * mask + (1 - mask)), so an overflowing masked position becomes inf * 0 = nan."""
import numpy as np


def masked_token_ppo_terms(new_log_probs, old_log_probs, advantages, mask, clip_epsilon=0.2):
    new = np.asarray(new_log_probs, dtype=float)
    old = np.asarray(old_log_probs, dtype=float)
    m = np.asarray(mask, dtype=float)
    if new.ndim != 2 or new.shape != old.shape or m.shape != new.shape:
        raise ValueError("log-probs and mask must be aligned [B, L] arrays")
    a = np.asarray(advantages, dtype=float)
    if a.shape == (new.shape[0],):
        a = a[:, None]
    elif a.shape != new.shape:
        raise ValueError("advantages must be [B] or [B, L]")

    with np.errstate(over="ignore", invalid="ignore"):
        raw = np.exp(new - old)
        ratio = raw * m + (1.0 - m)
    unclipped = ratio * a * m
    clipped = np.clip(ratio, 1 - clip_epsilon, 1 + clip_epsilon) * a * m
    pessimistic = np.minimum(unclipped, clipped)
    return ratio, unclipped, clipped, pessimistic
