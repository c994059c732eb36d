"""Clips to the textbook interval [0.8, 1.2] whatever clip_epsilon says.

expect: clip_epsilon is ignored
diagnosis: your clip interval is always [0.8, 1.2]: clip_epsilon is ignored, the interval is [1 - clip_epsilon, 1 +
    clip_epsilon]
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
    active = m != 0
    ratio = np.exp(np.where(active, new - old, 0.0))
    unclipped = np.where(active, ratio * adv, 0.0)
    clipped = np.where(active, np.clip(ratio, 0.8, 1.2) * adv, 0.0)
    return ratio, unclipped, clipped, np.minimum(unclipped, clipped)
