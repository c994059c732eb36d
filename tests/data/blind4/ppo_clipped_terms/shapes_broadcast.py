"""Lets numpy broadcast mismatched shapes (e.g. a scalar advantage) instead of raising ValueError."""
import numpy as np


def ppo_clipped_terms(ratio, advantage, clip_epsilon=0.2):
    r = np.asarray(ratio, dtype=float)
    a = np.asarray(advantage, dtype=float)
    r, a = np.broadcast_arrays(r, a)
    if np.any(~(r > 0)):
        raise ValueError("ratios must be strictly positive")
    if not 0.0 < clip_epsilon < 1.0:
        raise ValueError("clip_epsilon must lie in (0, 1)")
    unclipped = r * a
    clipped = np.clip(r, 1.0 - clip_epsilon, 1.0 + clip_epsilon) * a
    return unclipped, clipped, np.minimum(unclipped, clipped)
