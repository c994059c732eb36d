"""Does not check that ratio and advantage have the same shape, so a scalar or mismatched advantage broadcasts instead of raising ValueError."""
import numpy as np


def ppo_clipped_terms(ratio, advantage, clip_epsilon=0.2):
    r = np.asarray(ratio, dtype=float)
    if np.any(r <= 0):
        raise ValueError("ratios must be positive")
    a = np.broadcast_to(np.asarray(advantage, dtype=float), r.shape)
    unclipped = r * a
    clipped = np.clip(r, 1 - clip_epsilon, 1 + clip_epsilon) * a
    return unclipped, clipped, np.minimum(unclipped, clipped)
