"""correct: clips with np.minimum/np.maximum instead of np.clip and picks the pessimistic branch with np.where."""
import numpy as np


def ppo_clipped_terms(ratio, advantage, clip_epsilon=0.2):
    ratio = np.asarray(ratio, dtype=float)
    advantage = np.asarray(advantage, dtype=float)
    if ratio.shape != advantage.shape:
        raise ValueError("ratio and advantage must have the same shape")
    if (ratio <= 0).any():
        raise ValueError("probability ratios must be strictly positive")
    if not 0.0 < clip_epsilon < 1.0:
        raise ValueError("clip_epsilon must lie in (0, 1)")
    lo, hi = 1.0 - clip_epsilon, 1.0 + clip_epsilon
    clipped_ratio = np.maximum(np.minimum(ratio, hi), lo)
    unclipped = ratio * advantage
    clipped = clipped_ratio * advantage
    pessimistic = np.where(clipped < unclipped, clipped, unclipped)
    return unclipped, clipped, pessimistic
