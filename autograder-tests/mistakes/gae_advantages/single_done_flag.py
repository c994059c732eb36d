"""Uses one done flag for both questions: a trace cut also removes the bootstrap.

expect: removed the bootstrap
diagnosis: your advantages use one done flag for both questions: a trace cut also removed the bootstrap, but at a
    truncation (terminated=False) the target still uses gamma * next_values
"""

import numpy as np


def gae_advantages(rewards, values, next_values, terminated, trace_cuts, gamma, gae_lambda):
    r = np.asarray(rewards, dtype=float)
    v = np.asarray(values, dtype=float)
    nv = np.asarray(next_values, dtype=float)
    cuts = np.asarray(trace_cuts, dtype=bool)
    term = np.asarray(terminated, dtype=bool)
    if r.ndim != 1 or not (r.shape == v.shape == nv.shape == term.shape == cuts.shape):
        raise ValueError("misaligned")
    done = term | cuts
    if not (0 <= gamma <= 1 and 0 <= gae_lambda <= 1):
        raise ValueError("range")
    out = np.zeros_like(r)
    running = 0.0
    for t in reversed(range(len(r))):
        delta = r[t] + gamma * (not done[t]) * nv[t] - v[t]
        running = delta + gamma * gae_lambda * (not done[t]) * running
        out[t] = running
    return out
