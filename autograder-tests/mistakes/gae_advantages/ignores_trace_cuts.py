"""Continues the recursion across trace cuts (only terminated stops it).

expect: continues across a trace cut
diagnosis: your recursion ignores trace_cuts: it continues across a trace cut into records that belong to another
    episode or buffer
"""

import numpy as np


def gae_advantages(rewards, values, next_values, terminated, trace_cuts, gamma, gae_lambda):
    r = np.asarray(rewards, dtype=float)
    v = np.asarray(values, dtype=float)
    nv = np.asarray(next_values, dtype=float)
    term = np.asarray(terminated, dtype=bool)
    if r.ndim != 1 or not (r.shape == v.shape == nv.shape == term.shape == np.shape(trace_cuts)):
        raise ValueError("misaligned")
    if not (0 <= gamma <= 1 and 0 <= gae_lambda <= 1):
        raise ValueError("range")
    out = np.zeros_like(r)
    running = 0.0
    for t in reversed(range(len(r))):
        delta = r[t] + gamma * (not term[t]) * nv[t] - v[t]
        running = delta + gamma * gae_lambda * (not term[t]) * running
        out[t] = running
    return out
