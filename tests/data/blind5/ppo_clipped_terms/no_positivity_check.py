"""Checks the shapes but not that the ratios are strictly positive, so zero or negative ratios are accepted instead of raising ValueError."""
import numpy as np


def ppo_clipped_terms(ratio, advantage, clip_epsilon=0.2):
    r = np.asarray(ratio, dtype=float)
    a = np.asarray(advantage, dtype=float)
    if r.shape != a.shape:
        raise ValueError("ratio and advantage must be aligned")
    unclipped = r * a
    clipped = np.clip(r, 1 - clip_epsilon, 1 + clip_epsilon) * a
    return unclipped, clipped, np.minimum(unclipped, clipped)
