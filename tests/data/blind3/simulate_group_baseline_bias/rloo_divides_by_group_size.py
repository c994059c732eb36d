"""Averages the other responses with a denominator of G instead of G - 1 for the RLOO baseline."""
import numpy as np


def simulate_group_baseline_bias(group_size, groups, seed):
    for value in (group_size, groups):
        if isinstance(value, bool) or not isinstance(value, (int, np.integer)):
            raise ValueError("group_size and groups must be integers")
    if group_size < 2 or groups < 1:
        raise ValueError("need group_size >= 2 and groups >= 1")
    p = SUCCESS_PROBABILITY
    y = (np.random.default_rng(seed).random((groups, group_size)) < p).astype(float)
    r = REWARD_OFFSET + y
    score = y - p
    total = r.sum(axis=1, keepdims=True)
    plain = np.mean(r * score, axis=1)
    same = np.mean((r - total / group_size) * score, axis=1)
    rloo = np.mean((r - (total - r) / group_size) * score, axis=1)
    true = p * (1 - p)
    return {
        "true_gradient": float(true),
        "plain_scale": float(plain.mean() / true),
        "same_group_scale": float(same.mean() / true),
        "rloo_scale": float(rloo.mean() / true),
        "predicted_same_group_scale": float((group_size - 1) / group_size),
        "plain_std": float(plain.std()),
        "same_group_std": float(same.std()),
        "rloo_std": float(rloo.std()),
    }
