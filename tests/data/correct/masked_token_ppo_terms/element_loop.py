"""Position by position with math.exp; masked positions never touch their log-probabilities."""
import math

import numpy as np


def masked_token_ppo_terms(new_log_probs, old_log_probs, advantages, mask, clip_epsilon=0.2):
    new = np.array(new_log_probs, dtype=float)
    old = np.array(old_log_probs, dtype=float)
    m = np.array(mask, dtype=float)
    adv = np.array(advantages, dtype=float)
    if len(new.shape) != 2 or new.shape != old.shape or new.shape != m.shape:
        raise ValueError("new_log_probs, old_log_probs and mask must share one [B, L] shape")
    rows, cols = new.shape
    if adv.shape == (rows,):
        adv = np.repeat(adv[:, None], cols, axis=1)
    elif adv.shape != (rows, cols):
        raise ValueError("advantages must be [B] or [B, L]")
    if clip_epsilon <= 0 or clip_epsilon >= 1:
        raise ValueError("clip_epsilon must lie in (0, 1)")
    ratio = np.ones((rows, cols))
    unclipped, clipped, pessimistic = np.zeros((rows, cols)), np.zeros((rows, cols)), np.zeros((rows, cols))
    for b in range(rows):
        for k in range(cols):
            if m[b, k] == 0:
                continue
            r = math.exp(new[b, k] - old[b, k])
            ratio[b, k] = r
            unclipped[b, k] = r * adv[b, k]
            clipped[b, k] = min(max(r, 1 - clip_epsilon), 1 + clip_epsilon) * adv[b, k]
            pessimistic[b, k] = min(unclipped[b, k], clipped[b, k])
    return ratio, unclipped, clipped, pessimistic
