"""Does not check the mask's shape, so a mask that merely broadcasts (e.g. one [L] row) is accepted instead of raising ValueError."""
import numpy as np


def masked_token_ppo_terms(new_log_probs, old_log_probs, advantages, mask, clip_epsilon=0.2):
    new = np.asarray(new_log_probs, dtype=float)
    old = np.asarray(old_log_probs, dtype=float)
    if new.ndim != 2 or new.shape != old.shape:
        raise ValueError("log-probs must be aligned [B, L] arrays")
    m = np.broadcast_to(np.asarray(mask, dtype=float), new.shape)
    a = np.asarray(advantages, dtype=float)
    if a.shape == (new.shape[0],):
        a = a[:, None]
    elif a.shape != new.shape:
        raise ValueError("advantages must be [B] or [B, L]")
    ratio = np.exp(np.where(m > 0, new - old, 0.0))
    unclipped = ratio * a * m
    clipped = np.clip(ratio, 1 - clip_epsilon, 1 + clip_epsilon) * a * m
    pessimistic = np.minimum(unclipped, clipped)
    return ratio, unclipped, clipped, pessimistic
