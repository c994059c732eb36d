"""Ignores terminated: every transition bootstraps from next_values.

expect: terminal transition still bootstraps
diagnosis: your advantages ignore terminated: a terminal transition still bootstraps from next_values, although after
    termination there is no continuation value
"""

import numpy as np


def gae_advantages(rewards, values, next_values, terminated, trace_cuts, gamma, gae_lambda):
    r = np.asarray(rewards, dtype=float)
    v = np.asarray(values, dtype=float)
    nv = np.asarray(next_values, dtype=float)
    cuts = np.asarray(trace_cuts, dtype=bool)
    if r.ndim != 1 or not (r.shape == v.shape == nv.shape == cuts.shape == np.shape(terminated)):
        raise ValueError("misaligned")
    if not (0 <= gamma <= 1 and 0 <= gae_lambda <= 1):
        raise ValueError("range")
    out = np.zeros_like(r)
    running = 0.0
    for t in reversed(range(len(r))):
        running = r[t] + gamma * nv[t] - v[t] + gamma * gae_lambda * (not cuts[t]) * running
        out[t] = running
    return out
