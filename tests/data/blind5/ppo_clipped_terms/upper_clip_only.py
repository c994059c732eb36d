"""Clips the ratio only from above (min(r, 1+eps)) and never raises it to 1-eps."""
import numpy as np


def ppo_clipped_terms(ratio, advantage, clip_epsilon=0.2):
    r = np.asarray(ratio, dtype=float)
    a = np.asarray(advantage, dtype=float)
    if r.shape != a.shape or np.any(r <= 0):
        raise ValueError("positive aligned ratios are required")
    unclipped = r * a
    clipped = np.minimum(r, 1 + clip_epsilon) * a
    return unclipped, clipped, np.minimum(unclipped, clipped)
