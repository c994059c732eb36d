"""Masks the bootstrap with trace_cuts as well, so a truncated step loses its next-state value."""
import numpy as np


def gae_advantages(rewards, values, next_values, terminated, trace_cuts, gamma, gae_lambda):
    r = np.asarray(rewards, dtype=float)
    v = np.asarray(values, dtype=float)
    nv = np.asarray(next_values, dtype=float)
    term = np.asarray(terminated, dtype=bool)
    cut = np.asarray(trace_cuts, dtype=bool)
    if r.ndim != 1 or any(a.shape != r.shape for a in (v, nv, term, cut)):
        raise ValueError("inputs must be aligned one-dimensional arrays")
    if not (0.0 <= gamma <= 1.0 and 0.0 <= gae_lambda <= 1.0):
        raise ValueError("gamma and gae_lambda must lie in [0, 1]")
    T = r.size
    adv = np.zeros(T)
    following = 0.0
    for t in range(T - 1, -1, -1):
        delta = r[t] + gamma * (1.0 - (term[t] or cut[t])) * nv[t] - v[t]
        following = delta + gamma * gae_lambda * (1.0 - cut[t]) * following
        adv[t] = following
    return adv
