"""The specified draw; per-group sums, spreads from the first two moments, means with math.fsum."""
import math

import numpy as np


def simulate_group_baseline_bias(group_size, groups, seed):
    if isinstance(group_size, bool) or not isinstance(group_size, (int, np.integer)) or group_size < 2:
        raise ValueError("group_size must be an integer >= 2")
    if isinstance(groups, bool) or not isinstance(groups, (int, np.integer)) or groups < 1:
        raise ValueError("groups must be an integer >= 1")
    p = 0.3
    rng = np.random.default_rng(seed)
    y = (rng.random((groups, group_size)) < p).astype(float)
    r = 1.0 + y
    s = y - p
    total = np.sum(r, axis=1)[:, None]
    g = float(group_size)
    per_group = {
        "plain": np.sum(r * s, axis=1) / g,
        "same_group": np.sum((r - total / g) * s, axis=1) / g,
        "rloo": np.sum((r - (total - r) / (g - 1)) * s, axis=1) / g,
    }
    true_gradient = p * (1.0 - p)
    result = {"true_gradient": true_gradient}
    for name, e in per_group.items():
        mean = math.fsum(e) / len(e)
        result[f"{name}_scale"] = mean / true_gradient
        result[f"{name}_std"] = math.sqrt(max(math.fsum(e * e) / len(e) - mean * mean, 0.0))
    result["predicted_same_group_scale"] = (g - 1.0) / g
    return result
