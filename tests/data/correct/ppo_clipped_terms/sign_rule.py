"""The pessimistic term by the sign rule: min(r, 1 + eps) * A for A >= 0, max(r, 1 - eps) * A otherwise."""
import numpy as np


def ppo_clipped_terms(ratio, advantage, clip_epsilon=0.2):
    r = np.asarray(ratio, dtype=float)
    a = np.asarray(advantage, dtype=float)
    if r.shape != a.shape or not np.all(r > 0) or not 0 < clip_epsilon < 1:
        raise ValueError("positive ratios, aligned advantages and 0 < clip_epsilon < 1 are required")
    unclipped = r * a
    clipped = np.minimum(np.maximum(r, 1 - clip_epsilon), 1 + clip_epsilon) * a
    pessimistic = np.where(a >= 0, np.minimum(r, 1 + clip_epsilon) * a, np.maximum(r, 1 - clip_epsilon) * a)
    return unclipped, clipped, pessimistic
