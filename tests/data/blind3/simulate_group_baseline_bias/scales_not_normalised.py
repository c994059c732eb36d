"""Reports the mean estimates themselves as the scales, without dividing by the true gradient."""
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
        "plain": np.mean(r * score, axis=1),
        "same_group": np.mean((r - total / group_size) * score, axis=1),
        "rloo": np.mean((r - (total - r) / (group_size - 1)) * score, axis=1),
    }
    out = {"true_gradient": float(p * (1 - p))}
    out.update({f"{k}_scale": float(v.mean()) for k, v in est.items()})
    out["predicted_same_group_scale"] = float((group_size - 1) / group_size)
    out.update({f"{k}_std": float(v.std()) for k, v in est.items()})
    return out
