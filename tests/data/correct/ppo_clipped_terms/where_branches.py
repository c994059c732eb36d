"""The clipped branch spelled out with np.where, the pessimistic one as the smaller of two branches."""
import numpy as np


def ppo_clipped_terms(ratio, advantage, clip_epsilon=0.2):
    r = np.array(ratio, dtype=float)
    a = np.array(advantage, dtype=float)
    if r.shape != a.shape:
        raise ValueError("shapes differ")
    if np.any(r <= 0):
        raise ValueError("ratios must be positive")
    if clip_epsilon <= 0 or clip_epsilon >= 1:
        raise ValueError("clip_epsilon must lie in (0, 1)")
    low, high = 1 - clip_epsilon, 1 + clip_epsilon
    unclipped = r * a
    clipped = np.where(r > high, high * a, np.where(r < low, low * a, r * a))
    return unclipped, clipped, np.where(clipped < unclipped, clipped, unclipped)
