"""Copy-paste slip: every *_std is the spread of the RLOO estimates.

expect: variance reduction
diagnosis: your three spreads are all the RLOO spread: so they do not show the variance reduction; each *_std is the
    spread of its own estimator
"""

import numpy as np


def simulate_group_baseline_bias(group_size, groups, seed):
    for value, smallest in ((group_size, 2), (groups, 1)):
        if not isinstance(value, (int, np.integer)) or value < smallest:
            raise ValueError("group_size must be an integer >= 2 and groups an integer >= 1")
    p = 0.3
    rng = np.random.default_rng(seed)
    y = (rng.random((groups, group_size)) < p).astype(float)
    reward = 1.0 + y
    score = y - p
    total = reward.sum(axis=1, keepdims=True)
    plain = np.mean(reward * score, axis=1)
    same = np.mean((reward - total / group_size) * score, axis=1)
    rloo = np.mean((reward - (total - reward) / (group_size - 1)) * score, axis=1)
    true_gradient = p * (1 - p)
    return {
        "true_gradient": true_gradient,
        "plain_scale": float(plain.mean() / true_gradient),
        "same_group_scale": float(same.mean() / true_gradient),
        "rloo_scale": float(rloo.mean() / true_gradient),
        "predicted_same_group_scale": (group_size - 1) / group_size,
        "plain_std": float(rloo.std()),
        "same_group_std": float(rloo.std()),
        "rloo_std": float(rloo.std()),
    }
