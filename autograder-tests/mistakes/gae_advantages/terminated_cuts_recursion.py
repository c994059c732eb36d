"""Stops the recursion at terminated as well as at trace cuts.

expect: terminated is used to stop the recursion
diagnosis: your recursion stops at terminal transitions: terminated is used to stop the recursion, but only trace_cuts
    decides whether it continues
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
    cuts = cuts | term
    if not (0 <= gamma <= 1 and 0 <= gae_lambda <= 1):
        raise ValueError("range")
    out = np.zeros_like(r)
    running = 0.0
    for t in reversed(range(len(r))):
        running = r[t] + gamma * (not term[t]) * nv[t] - v[t] + gamma * gae_lambda * (not cuts[t]) * running
        out[t] = running
    return out
