"""Takes the success probability p as the true gradient instead of the derivative p(1 - p) of the expected reward with respect to the logit."""
import numpy as np


def simulate_group_baseline_bias(group_size, groups, seed):
    if group_size < 2 or groups < 1:
        raise ValueError("need group_size >= 2 and groups >= 1")
    p = SUCCESS_PROBABILITY
    Y = (np.random.default_rng(seed).random((groups, group_size)) < p).astype(float)
    score = Y - p
    R = REWARD_OFFSET + Y
    total = R.sum(axis=1, keepdims=True)
    plain = (R * score).mean(axis=1)
    same = ((R - total / group_size) * score).mean(axis=1)
    rloo = ((R - (total - R) / (group_size - 1)) * score).mean(axis=1)
    true = p
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
