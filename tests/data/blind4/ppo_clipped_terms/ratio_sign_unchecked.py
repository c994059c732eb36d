"""Never checks that the ratios are strictly positive, so zero or negative ratios are accepted."""
import numpy as np


def ppo_clipped_terms(ratio, advantage, clip_epsilon=0.2):
    r = np.asarray(ratio, dtype=float)
    a = np.asarray(advantage, dtype=float)
    if r.shape != a.shape:
        raise ValueError("ratio and advantage must have the same shape")
    if not 0.0 < clip_epsilon < 1.0:
        raise ValueError("clip_epsilon must lie in (0, 1)")
    unclipped = r * a
    clipped = np.clip(r, 1.0 - clip_epsilon, 1.0 + clip_epsilon) * a
    return unclipped, clipped, np.minimum(unclipped, clipped)
