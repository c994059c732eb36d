"""Faked simulation: the exact moments plus seeded noise of about one standard error.

The reported attack on issue 22, item 8 (2.86/3 when only the check of the specified draw
failed, weight 1): every scale is its expected value plus ``normal() * standard error`` from
``default_rng(seed)``, so it varies with the seed, scatters by a standard error and shrinks
with more groups; the spreads come from a private draw of its own. Nothing is the specified
draw ``default_rng(seed).random((groups, group_size)) < p``.

expect: nothing (it earns 0)
"""
import numpy as np


def simulate_group_baseline_bias(group_size, groups, seed):
    for name, value, smallest in (("group_size", group_size, 2), ("groups", groups, 1)):
        if isinstance(value, (bool, np.bool_)) or not isinstance(value, (int, np.integer)):
            raise ValueError(f"{name} must be an integer")
        if value < smallest:
            raise ValueError(f"{name} must be at least {smallest}")
    p, g = 0.3, group_size
    truth = p * (1 - p)
    # spreads from a private draw of its own (not the specified one), scaled to this group size
    y = (np.random.default_rng(seed + 1000003).random((20000, g)) < p).astype(float)
    r = 1.0 + y
    s = y - p
    total = r.sum(axis=1, keepdims=True)
    est = {"plain": np.mean(r * s, axis=1), "same_group": np.mean((r - total / g) * s, axis=1),
           "rloo": np.mean((r - (total - r) / (g - 1)) * s, axis=1)}
    expected = {"plain": 1.0, "same_group": (g - 1) / g, "rloo": 1.0}
    noise = np.random.default_rng(seed)
    out = {"true_gradient": truth, "predicted_same_group_scale": (g - 1) / g}
    for name in est:
        std = float(np.std(est[name]))
        out[f"{name}_scale"] = float(expected[name] + noise.normal() * std / np.sqrt(groups) / truth)
        out[f"{name}_std"] = std
    return out
