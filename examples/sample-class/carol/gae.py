import numpy as np


def gae_advantages(rewards, values, next_values, terminated, trace_cuts, gamma, gae_lambda):
    # Carol uses one "done" flag for both bootstrap and recursion.
    r = np.asarray(rewards, dtype=float)
    v = np.asarray(values, dtype=float)
    nv = np.asarray(next_values, dtype=float)
    done = np.asarray(terminated, dtype=bool) | np.asarray(trace_cuts, dtype=bool)
    if r.ndim != 1 or not (r.shape == v.shape == nv.shape == done.shape):
        raise ValueError("inputs must be aligned 1-D arrays")
    if not (0.0 <= gamma <= 1.0 and 0.0 <= gae_lambda <= 1.0):
        raise ValueError("gamma and gae_lambda must lie in [0, 1]")
    result = np.zeros_like(r)
    running = 0.0
    for t in range(len(r) - 1, -1, -1):
        delta = r[t] + gamma * (0.0 if done[t] else nv[t]) - v[t]
        running = delta + gamma * gae_lambda * (0.0 if done[t] else running)
        result[t] = running
    return result
