"""ppo_clipped_terms that returns the mean objective instead of the elementwise pessimistic terms.

module: ppo_objective
expect: ppo_clipped_terms returned shapes
"""
import numpy as np


def ppo_clipped_terms(ratio, advantage, clip_epsilon=0.2):
    r = np.asarray(ratio, dtype=float)
    a = np.asarray(advantage, dtype=float)
    if r.shape != a.shape or not np.all(r > 0) or not 0.0 < clip_epsilon < 1.0:
        raise ValueError("bad input")
    unclipped = r * a
    clipped = np.clip(r, 1.0 - clip_epsilon, 1.0 + clip_epsilon) * a
    return unclipped, clipped, np.mean(np.minimum(unclipped, clipped))
