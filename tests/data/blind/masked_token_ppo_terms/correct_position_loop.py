"""correct: starts from ratio ones and zero terms and fills the response positions one at a time from np.argwhere"""
import math

import numpy as np


def masked_token_ppo_terms(new_log_probs, old_log_probs, advantages, mask, clip_epsilon=0.2):
    new = np.asarray(new_log_probs, dtype=float)
    old = np.asarray(old_log_probs, dtype=float)
    m = np.asarray(mask, dtype=float)
    adv = np.asarray(advantages, dtype=float)
    if new.ndim != 2 or new.shape != old.shape or new.shape != m.shape:
        raise ValueError("new_log_probs, old_log_probs and mask must share one [B, L] shape")
    if adv.shape not in {new.shape, new.shape[:1]}:
        raise ValueError("advantages must be [B] or [B, L]")
    if clip_epsilon <= 0.0 or clip_epsilon >= 1.0:
        raise ValueError("clip_epsilon must lie in (0, 1)")
    ratio = np.ones(new.shape)
    unclipped, clipped, pessimistic = np.zeros(new.shape), np.zeros(new.shape), np.zeros(new.shape)
    for b, k in np.argwhere(m != 0):
        a = adv[b] if adv.ndim == 1 else adv[b, k]
        try:
            r = math.exp(new[b, k] - old[b, k])
        except OverflowError:
            r = math.inf
        ratio[b, k] = r
        unclipped[b, k] = r * a
        clipped[b, k] = min(max(r, 1.0 - clip_epsilon), 1.0 + clip_epsilon) * a
        pessimistic[b, k] = min(unclipped[b, k], clipped[b, k])
    return ratio, unclipped, clipped, pessimistic
