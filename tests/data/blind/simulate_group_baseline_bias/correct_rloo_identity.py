"""correct: derives the RLOO estimates from the same-group ones by the identity R_i - b_i = G/(G-1) (R_i - mean R)"""
import numbers

import numpy as np


def simulate_group_baseline_bias(group_size, groups, seed):
    # SUCCESS_PROBABILITY and REWARD_OFFSET are the exercise module's constants.
    if not (isinstance(group_size, numbers.Integral) and isinstance(groups, numbers.Integral)):
        raise ValueError("group_size and groups must be integers")
    if groups < 1 or group_size < 2:
        raise ValueError("need group_size >= 2 and groups >= 1")
    g = int(group_size)
    p = float(SUCCESS_PROBABILITY)
    correct = (np.random.default_rng(seed).random((int(groups), g)) < p).astype(float)
    reward = correct + REWARD_OFFSET
    centred_score = correct - p
    plain = (reward * centred_score).mean(axis=1)
    centred_reward = reward - reward.mean(axis=1)[:, None]
    same = (centred_reward * centred_score).mean(axis=1)
    rloo = same * (g / (g - 1))
    truth = p * (1 - p)
    result = {"true_gradient": truth, "predicted_same_group_scale": (g - 1) / g}
    for name, estimates in (("plain", plain), ("same_group", same), ("rloo", rloo)):
        result[name + "_scale"] = float(estimates.mean() / truth)
        result[name + "_std"] = float(estimates.std())
    return result
