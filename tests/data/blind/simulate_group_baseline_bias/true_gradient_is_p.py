"""takes the true gradient to be p instead of p * (1 - p)"""
import numbers

import numpy as np


def simulate_group_baseline_bias(group_size, groups, seed):
    # SUCCESS_PROBABILITY and REWARD_OFFSET are the exercise module's constants.
    if not isinstance(group_size, numbers.Integral) or not isinstance(groups, numbers.Integral):
        raise ValueError("group_size and groups must be integers")
    if group_size < 2 or groups < 1:
        raise ValueError("need group_size >= 2 and groups >= 1")
    p = SUCCESS_PROBABILITY
    size = int(group_size)
    y = np.random.default_rng(seed).random((int(groups), size)) < p
    rewards = REWARD_OFFSET + y.astype(float)
    score = y.astype(float) - p
    plain = np.mean(rewards * score, axis=1)
    same = np.mean((rewards - rewards.mean(axis=1, keepdims=True)) * score, axis=1)
    others = (rewards.sum(axis=1, keepdims=True) - rewards) / (size - 1)
    rloo = np.mean((rewards - others) * score, axis=1)
    true_gradient = p
    return {
        "true_gradient": float(true_gradient),
        "plain_scale": float(np.mean(plain) / true_gradient),
        "same_group_scale": float(np.mean(same) / true_gradient),
        "rloo_scale": float(np.mean(rloo) / true_gradient),
        "predicted_same_group_scale": (size - 1) / size,
        "plain_std": float(np.std(plain)),
        "same_group_std": float(np.std(same)),
        "rloo_std": float(np.std(rloo)),
    }
