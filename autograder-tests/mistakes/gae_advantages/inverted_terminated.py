"""Reads terminated the wrong way round: bootstraps only after a terminal transition.

expect: terminal transition still bootstraps
diagnosis: your advantages read terminated the wrong way round: a terminal transition still bootstraps from
    next_values while every other one does not
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
    deltas = r + gamma * np.where(term, nv, 0.0) - v
    out = np.zeros_like(deltas)
    running = 0.0
    for t in reversed(range(len(r))):
        running = deltas[t] + gamma * gae_lambda * (not cuts[t]) * running
        out[t] = running
    return out
