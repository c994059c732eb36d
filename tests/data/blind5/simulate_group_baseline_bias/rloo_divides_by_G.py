"""Computes the leave-one-out baseline as (sum - R_i)/G instead of (sum - R_i)/(G - 1)."""
import numpy as np


def simulate_group_baseline_bias(group_size, groups, seed):
    if group_size < 2 or groups < 1:
        raise ValueError("need group_size >= 2 and groups >= 1")
    p = SUCCESS_PROBABILITY
    G = group_size
    Y = (np.random.default_rng(seed).random((groups, G)) < p).astype(float)
    score = Y - p
    R = REWARD_OFFSET + Y
    s = R.sum(axis=1, keepdims=True)
    plain = np.mean(R * score, axis=1)
    same = np.mean((R - s / G) * score, axis=1)
    rloo = np.mean((R - (s - R) / G) * score, axis=1)
    true = p * (1 - p)
    return dict(
        true_gradient=float(true),
        plain_scale=float(plain.mean() / true),
        same_group_scale=float(same.mean() / true),
        rloo_scale=float(rloo.mean() / true),
        predicted_same_group_scale=float((G - 1) / G),
        plain_std=float(plain.std()),
        same_group_std=float(same.std()),
        rloo_std=float(rloo.std()),
    )
