"""zeroes the bootstrap wherever there is a trace cut (a single done flag), so truncated and buffer-end records lose their next value"""

import numpy as np


def gae_advantages(rewards, values, next_values, terminated, trace_cuts, gamma, gae_lambda):
    r = np.asarray(rewards, dtype=float)
    v = np.asarray(values, dtype=float)
    nv = np.asarray(next_values, dtype=float)
    term = np.asarray(terminated, dtype=bool)
    cuts = np.asarray(trace_cuts, dtype=bool)
    if r.ndim != 1 or not (r.shape == v.shape == nv.shape == term.shape == cuts.shape):
        raise ValueError("inputs must be aligned one-dimensional arrays")
    if not (0.0 <= gamma <= 1.0 and 0.0 <= gae_lambda <= 1.0):
        raise ValueError("gamma and gae_lambda must lie in [0, 1]")

    done = term | cuts
    delta = r + gamma * (1.0 - done) * nv - v

    adv = np.zeros_like(r)
    running = 0.0
    for t in range(len(r) - 1, -1, -1):
        running = delta[t] + gamma * gae_lambda * (1.0 - cuts[t]) * running
        adv[t] = running
    return adv
