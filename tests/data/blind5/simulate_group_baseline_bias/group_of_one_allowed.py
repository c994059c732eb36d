"""Does not reject group_size = 1, for which the leave-one-out baseline divides by zero, instead of raising ValueError."""
import numpy as np


def simulate_group_baseline_bias(group_size, groups, seed):
    p = SUCCESS_PROBABILITY
    rng = np.random.default_rng(seed)
    Y = (rng.random((groups, group_size)) < p).astype(float)
    score = Y - p
    R = REWARD_OFFSET + Y
    G = group_size
    with np.errstate(divide="ignore", invalid="ignore"):
        loo = (R.sum(axis=1, keepdims=True) - R) / (G - 1)
    plain = (R * score).mean(axis=1)
    same = ((R - R.mean(axis=1, keepdims=True)) * score).mean(axis=1)
    rloo = ((R - loo) * score).mean(axis=1)
    true = p * (1 - p)
    return {
        "true_gradient": float(true),
        "plain_scale": float(plain.mean() / true),
        "same_group_scale": float(same.mean() / true),
        "rloo_scale": float(rloo.mean() / true),
        "predicted_same_group_scale": float((G - 1) / G),
        "plain_std": float(plain.std()),
        "same_group_std": float(same.std()),
        "rloo_std": float(rloo.std()),
    }
