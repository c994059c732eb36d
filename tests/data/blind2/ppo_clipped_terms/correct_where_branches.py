"""correct: clips with maximum/minimum and picks the smaller branch with np.where"""

import numpy as np


def ppo_clipped_terms(ratio, advantage, clip_epsilon=0.2):
    r = np.array(ratio, dtype=np.float64)
    adv = np.array(advantage, dtype=np.float64)
    if r.shape != adv.shape:
        raise ValueError("shapes differ")
    if not (r > 0).all():
        raise ValueError("ratios must be strictly positive")
    if not (0 < clip_epsilon < 1):
        raise ValueError("clip_epsilon must be in (0, 1)")
    bounded = np.minimum(np.maximum(r, 1.0 - clip_epsilon), 1.0 + clip_epsilon)
    first = r * adv
    second = bounded * adv
    return first, second, np.where(second < first, second, first)
