"""Masks by multiplication: exp((new - old) * mask) and terms * mask, so -inf - -inf gives nan.

expect: leaks through multiplication by the mask
diagnosis: your terms are masked by multiplication: a -inf or nan log-prob at a masked position leaks through
    multiplication by the mask (-inf - -inf is nan); use np.where
"""

import numpy as np


def masked_token_ppo_terms(new_log_probs, old_log_probs, advantages, mask, clip_epsilon=0.2):
    new = np.asarray(new_log_probs, dtype=float)
    old = np.asarray(old_log_probs, dtype=float)
    adv = np.asarray(advantages, dtype=float)
    m = np.asarray(mask, dtype=float)
    if new.ndim != 2 or not new.shape == old.shape == m.shape:
        raise ValueError("shapes")
    if adv.shape == (new.shape[0],):
        adv = adv[:, None] * np.ones(new.shape)
    elif adv.shape != new.shape:
        raise ValueError("advantages must be [B] or [B, L]")
    if not 0.0 < clip_epsilon < 1.0:
        raise ValueError("clip_epsilon")
    ratio = np.exp((new - old) * m)
    unclipped = ratio * adv * m
    clipped = np.clip(ratio, 1 - clip_epsilon, 1 + clip_epsilon) * adv * m
    return ratio, unclipped, clipped, np.minimum(unclipped, clipped)
