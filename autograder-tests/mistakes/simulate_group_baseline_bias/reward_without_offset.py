"""Uses the correctness Y alone as the reward R, leaving out REWARD_OFFSET.

expect: leaves out REWARD_OFFSET
diagnosis: your reward is the correctness Y alone: it leaves out REWARD_OFFSET (R = REWARD_OFFSET + Y), the constant
    part of every reward that the baselines are there to remove
"""

import numpy as np


def simulate_group_baseline_bias(group_size, groups, seed):
    for value, smallest in ((group_size, 2), (groups, 1)):
        if isinstance(value, (bool, np.bool_)) or not isinstance(value, (int, np.integer)) or value < smallest:
            raise ValueError("group_size must be an integer >= 2 and groups an integer >= 1")
    p = SUCCESS_PROBABILITY  # noqa: F821 (the solutions module above)
    hits = (np.random.default_rng(seed).random((groups, group_size)) < p).astype(float)
    reward = hits  # the reward R = Y, with no REWARD_OFFSET
    score = hits - p
    mean_reward = reward.mean(axis=1, keepdims=True)
    others = (reward.sum(axis=1, keepdims=True) - reward) / (group_size - 1)
    estimates = {
        "plain": (reward * score).mean(axis=1),
        "same_group": ((reward - mean_reward) * score).mean(axis=1),
        "rloo": ((reward - others) * score).mean(axis=1),
    }
    true_gradient = p * (1.0 - p)
    result = {"true_gradient": true_gradient, "predicted_same_group_scale": (group_size - 1) / group_size}
    for name, per_group in estimates.items():
        result[f"{name}_scale"] = float(per_group.mean() / true_gradient)
        result[f"{name}_std"] = float(per_group.std())
    return result
