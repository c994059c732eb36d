"""Reads the 'next advantage' with index t + 1 modulo T, so the last record picks up the first.

expect: carries past the end of the array
diagnosis: your recursion carries past the end of the array: the last record picks up the first one's advantage (A_T
    must be 0 beyond the last record)
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
    out = deltas.copy()
    # Two sweeps, the second seeing "out[t + 1]" wrap around for the last record.
    for _ in range(2):
        for t in reversed(range(len(r))):
            nxt = out[(t + 1) % len(r)]
            out[t] = deltas[t] + gamma * gae_lambda * (not cuts[t]) * nxt
    return out
