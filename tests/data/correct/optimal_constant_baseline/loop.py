"""Loops over actions: the squared norm of each score vector summed component by component with fsum."""
import math

import numpy as np


def optimal_constant_baseline(logits, action_values):
    z = np.asarray(logits, dtype=float)
    q = np.asarray(action_values, dtype=float)
    if z.ndim != 1 or q.ndim != 1 or len(z) != len(q) or len(z) < 2:
        raise ValueError("logits and action_values must be aligned vectors of at least two actions")
    top = max(z)
    exps = [math.exp(x - top) for x in z]
    total = math.fsum(exps)
    p = [e / total for e in exps]
    weights = []
    for a in range(len(p)):
        squared = math.fsum(((1.0 if k == a else 0.0) - p[k]) ** 2 for k in range(len(p)))
        weights.append(p[a] * squared)
    return math.fsum(w * v for w, v in zip(weights, q)) / math.fsum(weights)
