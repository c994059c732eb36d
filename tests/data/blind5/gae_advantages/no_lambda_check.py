"""Validates gamma but not gae_lambda, so lambda outside [0, 1] is accepted instead of raising ValueError."""
import numpy as np


def gae_advantages(rewards, values, next_values, terminated, trace_cuts, gamma, gae_lambda):
    r = np.asarray(rewards, dtype=float)
    v = np.asarray(values, dtype=float)
    nv = np.asarray(next_values, dtype=float)
    term = np.asarray(terminated, dtype=bool)
    cuts = np.asarray(trace_cuts, dtype=bool)
    if not (r.shape == v.shape == nv.shape == term.shape == cuts.shape) or r.ndim != 1:
        raise ValueError("all inputs must be aligned one-dimensional arrays")
    if not 0.0 <= gamma <= 1.0:
        raise ValueError("gamma must lie in [0, 1]")
    deltas = r + gamma * np.where(term, 0.0, nv) - v
    result = np.empty_like(deltas)
    running = 0.0
    for t in range(len(r) - 1, -1, -1):
        running = deltas[t] + gamma * gae_lambda * (not cuts[t]) * running
        result[t] = running
    return result
