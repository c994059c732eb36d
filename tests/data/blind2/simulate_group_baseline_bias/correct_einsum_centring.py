"""correct: forms all three baselines as a (groups, G, 3) stack and averages with einsum"""

import numpy as np


def simulate_group_baseline_bias(group_size, groups, seed):
    if type(group_size) is bool or type(groups) is bool:
        raise ValueError("group_size and groups must be integers")
    if not isinstance(group_size, (int, np.integer)) or not isinstance(groups, (int, np.integer)):
        raise ValueError("group_size and groups must be integers")
    if group_size < 2 or groups < 1:
        raise ValueError("group_size must be >= 2 and groups >= 1")
    p = float(SUCCESS_PROBABILITY)
    G = int(group_size)
    correct = np.random.default_rng(seed).random((groups, G)) < p
    R = correct.astype(np.float64) + REWARD_OFFSET
    score = correct.astype(np.float64) - p
    total = R.sum(axis=1, keepdims=True)
    baselines = np.stack([np.zeros_like(R), np.broadcast_to(total / G, R.shape), (total - R) / (G - 1)], axis=-1)
    per_group = np.einsum("ngk,ng->nk", R[..., None] - baselines, score) / G
    true = p * (1.0 - p)
    out = {"true_gradient": true}
    names = ("plain", "same_group", "rloo")
    for k, name in enumerate(names):
        out[f"{name}_scale"] = float(per_group[:, k].mean() / true)
    out["predicted_same_group_scale"] = float((G - 1) / G)
    for k, name in enumerate(names):
        out[f"{name}_std"] = float(per_group[:, k].std())
    return out
