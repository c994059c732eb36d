"""Predicts the same-group scale as G/(G-1) instead of (G-1)/G."""
import numpy as np


def simulate_group_baseline_bias(group_size, groups, seed):
    if group_size < 2 or groups < 1:
        raise ValueError("need group_size >= 2 and groups >= 1")
    p = SUCCESS_PROBABILITY
    rng = np.random.default_rng(seed)
    Y = (rng.random((groups, group_size)) < p).astype(float)
    score = Y - p
    R = REWARD_OFFSET + Y
    G = group_size
    ests = {
        "plain": (R * score).mean(axis=1),
        "same_group": ((R - R.mean(axis=1, keepdims=True)) * score).mean(axis=1),
        "rloo": ((R - (R.sum(axis=1, keepdims=True) - R) / (G - 1)) * score).mean(axis=1),
    }
    true = p * (1 - p)
    result = {"true_gradient": float(true)}
    for name, e in ests.items():
        result[name + "_scale"] = float(np.mean(e) / true)
    result["predicted_same_group_scale"] = G / (G - 1)
    for name, e in ests.items():
        result[name + "_std"] = float(np.std(e))
    return result
