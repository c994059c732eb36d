"""Takes the minimum for positive advantages but the maximum for negative ones, which picks the optimistic term when the advantage is negative."""
import numpy as np


def ppo_clipped_terms(ratio, advantage, clip_epsilon=0.2):
    r = np.asarray(ratio, dtype=float)
    a = np.asarray(advantage, dtype=float)
    if r.shape != a.shape or np.any(r <= 0):
        raise ValueError("positive aligned ratios are required")
    unclipped = r * a
    clipped = np.clip(r, 1 - clip_epsilon, 1 + clip_epsilon) * a
    # negative advantage: the "smaller" step is the larger (less negative) value
    pessimistic = np.where(a >= 0, np.minimum(unclipped, clipped), np.maximum(unclipped, clipped))
    return unclipped, clipped, pessimistic
