"""Clips the log-ratio to [-eps, eps] before exponentiating, so the ratio interval is [exp(-eps), exp(eps)] instead of [1 - eps, 1 + eps]."""
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
    log_ratio = np.where(on, new, 0.0) - np.where(on, old, 0.0)
    ratio = np.exp(log_ratio)
    a = np.where(on, adv, 0.0)
    unclipped = ratio * a
    clipped = np.exp(np.clip(log_ratio, -clip_epsilon, clip_epsilon)) * a
    pessimistic = np.minimum(unclipped, clipped)
    return ratio, unclipped, clipped, pessimistic
