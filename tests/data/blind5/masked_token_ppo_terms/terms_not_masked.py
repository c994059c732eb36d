"""Computes ratios and all three terms on every position and never applies the mask, so prompt and padding columns enter the objective."""
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

    ratio = np.exp(new - old)
    unclipped = ratio * a
    clipped = np.clip(ratio, 1 - clip_epsilon, 1 + clip_epsilon) * a
    pessimistic = np.minimum(unclipped, clipped)
    return ratio, unclipped, clipped, pessimistic
