"""Averages each estimator over axis 0 (the groups) instead of axis 1 (the responses of one group), so the spreads describe the wrong quantity."""
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
    est = {
        "plain": np.mean(r * score, axis=0),
        "same_group": np.mean((r - total / group_size) * score, axis=0),
        "rloo": np.mean((r - (total - r) / (group_size - 1)) * score, axis=0),
    }
    true = p * (1 - p)
    out = {"true_gradient": float(true)}
    out.update({f"{k}_scale": float(v.mean() / true) for k, v in est.items()})
    out["predicted_same_group_scale"] = float((group_size - 1) / group_size)
    out.update({f"{k}_std": float(v.std()) for k, v in est.items()})
    return out
