"""Does not validate group_size and groups.

expect: must raise ValueError
diagnosis: your function checks nothing: group_size below 2, groups below 1 or a non-integer count must raise
    ValueError
"""

import numpy as np


def simulate_group_baseline_bias(group_size, groups, seed):
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
        "plain_std": float(plain.std()),
        "same_group_std": float(same.std()),
        "rloo_std": float(rloo.std()),
    }
