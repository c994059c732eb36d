"""Returns the theoretical values (exact expectations and spreads, by enumerating every outcome of a
group) instead of simulating: the seed and the number of groups change nothing.

expect: results are the theoretical values
diagnosis: your results are the theoretical values: they do not vary with the seed as Monte Carlo estimates must;
    simulate the responses with the seeded generator
"""

import itertools

import numpy as np


def simulate_group_baseline_bias(group_size, groups, seed):
    for value, smallest in ((group_size, 2), (groups, 1)):
        if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value < smallest:
            raise ValueError("group_size must be an integer >= 2 and groups an integer >= 1")
    p = 0.3
    outcomes = np.array(list(itertools.product([0.0, 1.0], repeat=group_size)))
    weight = np.prod(np.where(outcomes == 1.0, p, 1 - p), axis=1)
    reward, score = 1.0 + outcomes, outcomes - p
    total = reward.sum(axis=1, keepdims=True)
    estimates = {
        "plain": np.mean(reward * score, axis=1),
        "same_group": np.mean((reward - total / group_size) * score, axis=1),
        "rloo": np.mean((reward - (total - reward) / (group_size - 1)) * score, axis=1),
    }
    true_gradient = p * (1 - p)
    result = {"true_gradient": true_gradient}
    for name, per_group in estimates.items():
        result[f"{name}_scale"] = float(np.sum(weight * per_group) / true_gradient)
    result["predicted_same_group_scale"] = (group_size - 1) / group_size
    for name, per_group in estimates.items():
        mean = np.sum(weight * per_group)
        result[f"{name}_std"] = float(np.sqrt(np.sum(weight * (per_group - mean) ** 2)))
    return result
