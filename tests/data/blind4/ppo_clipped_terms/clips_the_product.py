"""Clips the product r * A to [1 - eps, 1 + eps] instead of clipping the ratio before multiplying."""
import numpy as np


def ppo_clipped_terms(ratio, advantage, clip_epsilon=0.2):
    r = np.asarray(ratio, dtype=float)
    a = np.asarray(advantage, dtype=float)
    if r.shape != a.shape:
        raise ValueError("ratio and advantage must have the same shape")
    if np.any(~(r > 0)):
        raise ValueError("ratios must be strictly positive")
    if not 0.0 < clip_epsilon < 1.0:
        raise ValueError("clip_epsilon must lie in (0, 1)")
    unclipped = r * a
    clipped = np.clip(unclipped, 1.0 - clip_epsilon, 1.0 + clip_epsilon)
    return unclipped, clipped, np.minimum(unclipped, clipped)
