"""clips r - 1 to [-eps, eps] and forgets to add 1 back before multiplying by A"""
import numpy as np


def ppo_clipped_terms(ratio, advantage, clip_epsilon=0.2):
    r = np.asarray(ratio, dtype=float)
    a = np.asarray(advantage, dtype=float)
    if r.shape != a.shape:
        raise ValueError("ratio and advantage must have the same shape")
    if not 0.0 < clip_epsilon < 1.0:
        raise ValueError("clip_epsilon must lie in (0, 1)")
    if np.any(~(r > 0)):
        raise ValueError("ratios must be strictly positive")
    unclipped = r * a
    clipped = np.clip(r - 1.0, -clip_epsilon, clip_epsilon) * a
    pessimistic = np.minimum(unclipped, clipped)
    return unclipped, clipped, pessimistic
