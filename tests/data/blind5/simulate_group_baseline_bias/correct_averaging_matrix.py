"""correct: forms the group-mean and leave-one-out baselines with G x G averaging matrices instead of sum arithmetic."""
import numpy as np


def simulate_group_baseline_bias(group_size, groups, seed):
    G = int(group_size)
    n = int(groups)
    if G != group_size or n != groups or G < 2 or n < 1:
        raise ValueError("group_size must be an integer >= 2 and groups an integer >= 1")
    p = SUCCESS_PROBABILITY
    y = np.random.default_rng(seed).random((n, G)) < p
    Y = y.astype(float)
    score = Y - p
    R = REWARD_OFFSET + Y
    mean_matrix = np.full((G, G), 1.0 / G)
    loo_matrix = (np.ones((G, G)) - np.eye(G)) / (G - 1)
    baselines = {
        "plain": np.zeros_like(R),
        "same_group": R @ mean_matrix,
        "rloo": R @ loo_matrix,
    }
    true_gradient = p * (1.0 - p)   # d/dlogit of E[R] = REWARD_OFFSET + p
    out = {"true_gradient": float(true_gradient)}
    per_group = {k: ((R - b) * score).mean(axis=1) for k, b in baselines.items()}
    for k, est in per_group.items():
        out[f"{k}_scale"] = float(est.mean() / true_gradient)
    out["predicted_same_group_scale"] = float((G - 1) / G)
    for k, est in per_group.items():
        out[f"{k}_std"] = float(est.std())
    return out
