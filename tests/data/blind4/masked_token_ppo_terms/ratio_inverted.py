"""Forms the token ratio as exp(old - new) instead of exp(new - old)."""
import numpy as np


def masked_token_ppo_terms(new_log_probs, old_log_probs, advantages, mask, clip_epsilon=0.2):
    new = np.asarray(new_log_probs, dtype=float)
    old = np.asarray(old_log_probs, dtype=float)
    adv = np.asarray(advantages, dtype=float)
    m = np.asarray(mask, dtype=float)
    if new.ndim != 2 or old.shape != new.shape or m.shape != new.shape:
        raise ValueError("log-probabilities and mask must share one [B, L] shape")
    if adv.shape == (new.shape[0],):
        adv = adv[:, None]
    elif adv.shape != new.shape:
        raise ValueError("advantages must be [B] or [B, L]")
    if not 0.0 < clip_epsilon < 1.0:
        raise ValueError("clip_epsilon must lie in (0, 1)")
    keep = m != 0
    ratio = np.exp(np.where(keep, old, 0.0) - np.where(keep, new, 0.0))
    a = adv * m
    unclipped = ratio * a
    clipped = np.clip(ratio, 1.0 - clip_epsilon, 1.0 + clip_epsilon) * a
    return ratio, unclipped, clipped, np.minimum(unclipped, clipped)
