"""correct: clips with two np.where branches and takes the minimum with np.where instead of np.clip and np.minimum."""
import numpy as np


def ppo_clipped_terms(ratio, advantage, clip_epsilon=0.2):
    r = np.array(ratio, dtype=np.float64)
    a = np.array(advantage, dtype=np.float64)
    if r.shape != a.shape:
        raise ValueError(f"ratio {r.shape} and advantage {a.shape} differ in shape")
    if not (0.0 < clip_epsilon < 1.0):
        raise ValueError(f"clip_epsilon must lie in (0, 1), got {clip_epsilon}")
    if not np.all(r > 0.0):
        raise ValueError("every ratio must be strictly positive")
    low, high = 1.0 - clip_epsilon, 1.0 + clip_epsilon
    bounded = np.where(r < low, low, np.where(r > high, high, r))
    unclipped = r * a
    clipped = bounded * a
    pessimistic = np.where(clipped < unclipped, clipped, unclipped)
    return unclipped, clipped, pessimistic
