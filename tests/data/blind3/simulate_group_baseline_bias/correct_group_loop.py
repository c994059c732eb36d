"""correct: loops over the groups and builds each estimator's baseline explicitly, then summarises."""
import numpy as np


def simulate_group_baseline_bias(group_size, groups, seed):
    for name, value in (("group_size", group_size), ("groups", groups)):
        if isinstance(value, bool) or not isinstance(value, (int, np.integer)):
            raise ValueError(f"{name} must be an integer, got {value!r}")
    if group_size < 2:
        raise ValueError("group_size must be at least 2")
    if groups < 1:
        raise ValueError("groups must be at least 1")
    p = SUCCESS_PROBABILITY
    y = np.random.default_rng(seed).random((groups, group_size)) < p
    true_gradient = p * (1.0 - p)
    estimates = {"plain": [], "same_group": [], "rloo": []}
    for row in y:
        correct = row.astype(np.float64)
        reward = REWARD_OFFSET + correct
        score = correct - p
        total = reward.sum()
        baselines = {
            "plain": np.zeros(group_size),
            "same_group": np.full(group_size, total / group_size),
            "rloo": (total - reward) / (group_size - 1),
        }
        for name, b in baselines.items():
            estimates[name].append(np.mean((reward - b) * score))
    result = {"true_gradient": float(true_gradient)}
    for name, values in estimates.items():
        result[f"{name}_scale"] = float(np.mean(values) / true_gradient)
    result["predicted_same_group_scale"] = float((group_size - 1) / group_size)
    for name, values in estimates.items():
        result[f"{name}_std"] = float(np.std(values))
    return result
