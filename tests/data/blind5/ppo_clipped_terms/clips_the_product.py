"""Clips the product ratio * advantage to [1-eps, 1+eps] instead of clipping the ratio and then multiplying by the advantage."""
import numpy as np


def ppo_clipped_terms(ratio, advantage, clip_epsilon=0.2):
    r = np.asarray(ratio, dtype=float)
    a = np.asarray(advantage, dtype=float)
    if r.shape != a.shape or np.any(r <= 0):
        raise ValueError("positive aligned ratios are required")
    unclipped = r * a
    clipped = np.clip(unclipped, 1 - clip_epsilon, 1 + clip_epsilon)
    return unclipped, clipped, np.minimum(unclipped, clipped)
