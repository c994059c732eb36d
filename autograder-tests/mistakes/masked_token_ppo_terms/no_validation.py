"""Correct terms but no checks of shapes or clip_epsilon (broadcasting hides mistakes), and it needs arrays.

expect: must raise ValueError
diagnosis: your function checks nothing and needs arrays: misshaped inputs or clip_epsilon outside (0, 1) must raise
    ValueError, and lists must work
"""

import numpy as np


def masked_token_ppo_terms(new_log_probs, old_log_probs, advantages, mask, clip_epsilon=0.2):
    adv = advantages if advantages.ndim == 2 else advantages[:, None]
    active = mask != 0
    ratio = np.exp(np.where(active, new_log_probs - old_log_probs, 0.0))
    unclipped = np.where(active, ratio * adv, 0.0)
    clipped = np.where(active, np.clip(ratio, 1 - clip_epsilon, 1 + clip_epsilon) * adv, 0.0)
    return ratio, unclipped, clipped, np.minimum(unclipped, clipped)
