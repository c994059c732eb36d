"""Uses the score p - Y instead of Y - p, so every estimate has its sign flipped.

expect: score p - Y
diagnosis: your estimates use the score p - Y, with its sign flipped: the score of the draw is Y - p, so every scale
    comes out negated
"""

import numpy as np


def simulate_group_baseline_bias(group_size, groups, seed):
    for value, smallest in ((group_size, 2), (groups, 1)):
        if isinstance(value, (bool, np.bool_)) or not isinstance(value, (int, np.integer)) or value < smallest:
            raise ValueError("group_size must be an integer >= 2 and groups an integer >= 1")
    p = SUCCESS_PROBABILITY  # noqa: F821 (the solutions module above)
    hits = (np.random.default_rng(seed).random((groups, group_size)) < p).astype(float)
    reward = REWARD_OFFSET + hits  # noqa: F821
    score = p - hits
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
