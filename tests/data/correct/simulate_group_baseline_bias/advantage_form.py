"""The specified draw; RLOO advantages as G / (G - 1) times the centred ones, estimates with einsum."""
import numpy as np


def simulate_group_baseline_bias(group_size, groups, seed):
    for value, least in ((group_size, 2), (groups, 1)):
        if isinstance(value, (bool, np.bool_)) or not isinstance(value, (int, np.integer)) or value < least:
            raise ValueError("group_size must be an integer >= 2 and groups an integer >= 1")
    p = 0.3
    y = (np.random.default_rng(seed).random((groups, group_size)) < p).astype(float)
    reward, score = 1.0 + y, y - p
    centred = reward - reward.mean(axis=1, keepdims=True)
    advantages = {"plain": reward, "same_group": centred, "rloo": centred * group_size / (group_size - 1)}
    true_gradient = p * (1 - p)
    estimates = {k: np.einsum("gi,gi->g", a, score) / group_size for k, a in advantages.items()}
    out = {"true_gradient": true_gradient, "predicted_same_group_scale": (group_size - 1) / group_size}
    for name, e in estimates.items():
        out[name + "_scale"] = float(e.mean() / true_gradient)
        out[name + "_std"] = float(e.std())
    return out
