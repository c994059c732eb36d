"""Stops the carry of A_{t+1} into A_t at the trace cut of record t + 1 instead of record t.

expect: trace cut of the next record
diagnosis: your recursion stops carrying A_{t+1} back into A_t at the trace cut of the next record (trace_cuts[t + 1]):
    trace_cuts[t] is the flag that separates record t from record t + 1
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
    deltas = r + gamma * (~term) * nv - v
    out = np.zeros_like(deltas)
    running = 0.0
    for t in reversed(range(len(r))):
        next_cut = t + 1 < len(r) and cuts[t + 1]
        running = deltas[t] + gamma * gae_lambda * (not next_cut) * running
        out[t] = running
    return out
