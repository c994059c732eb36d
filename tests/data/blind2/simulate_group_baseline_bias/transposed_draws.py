"""draws the uniforms with shape (group_size, groups) and groups along the other axis, so the responses differ from the prescribed draw"""

import numbers

import numpy as np


def simulate_group_baseline_bias(group_size, groups, seed):
    for value in (group_size, groups):
        if isinstance(value, bool) or not isinstance(value, numbers.Integral):
            raise ValueError("group_size and groups must be integers")
    if group_size < 2 or groups < 1:
        raise ValueError("need group_size >= 2 and groups >= 1")
    p = SUCCESS_PROBABILITY
    G = int(group_size)

    y = (np.random.default_rng(seed).random((G, groups)) < p).astype(float).T
    reward = REWARD_OFFSET + y
    score = y - p

    plain = np.mean(reward * score, axis=1)
    same = np.mean((reward - reward.mean(axis=1, keepdims=True)) * score, axis=1)
    loo = (reward.sum(axis=1, keepdims=True) - reward) / (G - 1)
    rloo = np.mean((reward - loo) * score, axis=1)

    true = p * (1 - p)
    result = {"true_gradient": float(true)}
    for name, est in (("plain", plain), ("same_group", same), ("rloo", rloo)):
        result[name + "_scale"] = float(np.mean(est) / true)
    result["predicted_same_group_scale"] = (G - 1) / G
    for name, est in (("plain", plain), ("same_group", same), ("rloo", rloo)):
        result[name + "_std"] = float(np.std(est))
    return result
