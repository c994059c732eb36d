"""correct: loops over a dict of the three baseline arrays and applies one estimator formula to each."""
import numbers

import numpy as np


def simulate_group_baseline_bias(group_size, groups, seed):
    for value, low in ((group_size, 2), (groups, 1)):
        if isinstance(value, (bool, np.bool_)) or not isinstance(value, numbers.Integral):
            raise ValueError("group_size and groups must be integers")
        if value < low:
            raise ValueError("group_size must be >= 2 and groups >= 1")
    p = SUCCESS_PROBABILITY
    G = int(group_size)
    y = np.random.default_rng(seed).random((groups, G)) < p
    reward = REWARD_OFFSET + y.astype(float)
    score = y - p
    total = reward.sum(axis=1, keepdims=True)
    baselines = {
        "plain": np.zeros_like(reward),
        "same_group": total / G,
        "rloo": (total - reward) / (G - 1),
    }
    true_gradient = p * (1 - p)
    result = {"true_gradient": float(true_gradient),
              "predicted_same_group_scale": (G - 1) / G}
    for name, b in baselines.items():
        estimates = np.mean((reward - b) * score, axis=1)
        result[f"{name}_scale"] = float(np.mean(estimates) / true_gradient)
        result[f"{name}_std"] = float(np.std(estimates, ddof=0))
    return result
