"""Applies the mask by multiplication, so -inf or nan log-probabilities at masked positions leak nan into the ratio and terms."""
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
    if not 0.0 < clip_epsilon < 1.0:
        raise ValueError("clip_epsilon must lie in (0, 1)")
    on = m != 0
    with np.errstate(invalid="ignore", over="ignore"):
        ratio = np.exp(new - old) * m + (1.0 - m)
        unclipped = ratio * adv * m
        clipped = np.clip(ratio, 1 - clip_epsilon, 1 + clip_epsilon) * adv * m
    pessimistic = np.minimum(unclipped, clipped)
    return ratio, unclipped, clipped, pessimistic
