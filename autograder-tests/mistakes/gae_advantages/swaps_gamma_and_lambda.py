"""Swaps the two parameters: discounts the bootstrap by gae_lambda (delta = r + lambda V' - V).

expect: still depend on gae_lambda
diagnosis: your advantages swap the two parameters: with every record cut they still depend on gae_lambda, which
    discounts your bootstrap instead of gamma (delta_t = r_t + gamma * next_values_t - values_t)
"""

import numpy as np


def gae_advantages(rewards, values, next_values, terminated, trace_cuts, gamma, gae_lambda):
    r = np.asarray(rewards, dtype=float)
    v = np.asarray(values, dtype=float)
    nv = np.asarray(next_values, dtype=float)
    term = np.asarray(terminated, dtype=bool)
    cuts = np.asarray(trace_cuts, dtype=bool)
    if r.ndim != 1 or not (r.shape == v.shape == nv.shape == term.shape == cuts.shape):
        raise ValueError("misaligned")
    if not (0 <= gamma <= 1 and 0 <= gae_lambda <= 1):
        raise ValueError("range")
    deltas = r + gae_lambda * np.where(term, 0.0, nv) - v
    out = np.zeros_like(deltas)
    running = 0.0
    for t in reversed(range(len(r))):
        running = deltas[t] + gamma * gae_lambda * (not cuts[t]) * running
        out[t] = running
    return out
