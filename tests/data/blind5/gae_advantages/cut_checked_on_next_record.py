"""Checks trace_cuts[t+1] instead of trace_cuts[t] to decide whether A[t+1] may flow into A[t] (off by one record)."""
import numpy as np


def gae_advantages(rewards, values, next_values, terminated, trace_cuts, gamma, gae_lambda):
    r = np.asarray(rewards, dtype=float)
    v = np.asarray(values, dtype=float)
    nv = np.asarray(next_values, dtype=float)
    term = np.asarray(terminated, dtype=bool)
    cuts = np.asarray(trace_cuts, dtype=bool)
    if not (r.shape == v.shape == nv.shape == term.shape == cuts.shape) or r.ndim != 1:
        raise ValueError("all inputs must be aligned one-dimensional arrays")
    if not (0.0 <= gamma <= 1.0 and 0.0 <= gae_lambda <= 1.0):
        raise ValueError("gamma and gae_lambda must lie in [0, 1]")

    deltas = r + gamma * (~term).astype(float) * nv - v
    T = len(r)
    A = np.zeros(T)
    for t in range(T - 1, -1, -1):
        A[t] = deltas[t]
        if t + 1 < T and not cuts[t + 1]:
            A[t] += gamma * gae_lambda * A[t + 1]
    return A
