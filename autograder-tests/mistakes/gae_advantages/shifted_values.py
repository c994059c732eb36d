"""Takes V(s_{t+1}) from values[t + 1] instead of next_values (0 at the end).

expect: values[t + 1] instead of next_values
diagnosis: your advantages take next-state values from values[t + 1] instead of next_values (which holds V(s_{t+1})
    even at truncations and buffer ends)
"""

import numpy as np


def gae_advantages(rewards, values, next_values, terminated, trace_cuts, gamma, gae_lambda):
    r = np.asarray(rewards, dtype=float)
    v = np.asarray(values, dtype=float)
    term = np.asarray(terminated, dtype=bool)
    cuts = np.asarray(trace_cuts, dtype=bool)
    if r.ndim != 1 or not (r.shape == v.shape == np.shape(next_values) == term.shape == cuts.shape):
        raise ValueError("misaligned")
    if not (0 <= gamma <= 1 and 0 <= gae_lambda <= 1):
        raise ValueError("range")
    nv = np.append(v[1:], 0.0)
    out = np.zeros_like(r)
    running = 0.0
    for t in reversed(range(len(r))):
        running = r[t] + gamma * (not term[t]) * nv[t] - v[t] + gamma * gae_lambda * (not cuts[t]) * running
        out[t] = running
    return out
