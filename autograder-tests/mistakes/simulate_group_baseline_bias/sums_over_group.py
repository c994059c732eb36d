"""Sums (R_i - b_i)(Y_i - p) over the responses of a group instead of averaging it over the G responses.

expect: sums over the responses of a group
diagnosis: your per-group estimates add up (R_i - b_i)(Y_i - p): it sums over the responses of a group, so every scale
    and spread grows with group_size; each group's estimate is the average over its G responses
"""

import numpy as np


def simulate_group_baseline_bias(group_size, groups, seed):
    for value, smallest in ((group_size, 2), (groups, 1)):
        if isinstance(value, (bool, np.bool_)) or not isinstance(value, (int, np.integer)) or value < smallest:
            raise ValueError("group_size must be an integer >= 2 and groups an integer >= 1")
    p = SUCCESS_PROBABILITY  # noqa: F821 (the solutions module above)
    hits = (np.random.default_rng(seed).random((groups, group_size)) < p).astype(float)
    reward = REWARD_OFFSET + hits  # noqa: F821
    score = hits - p
    total = reward.sum(axis=1, keepdims=True)
    baselines = {"plain": 0.0, "same_group": total / group_size, "rloo": (total - reward) / (group_size - 1)}
    true_gradient = p * (1.0 - p)
    result = {"true_gradient": true_gradient, "predicted_same_group_scale": (group_size - 1) / group_size}
    for name, baseline in baselines.items():
        per_group = ((reward - baseline) * score).sum(axis=1)
        result[f"{name}_scale"] = float(per_group.mean() / true_gradient)
        result[f"{name}_std"] = float(per_group.std())
    return result
