"""Correct arithmetic but no input validation, and it needs arrays (calls .shape on inputs).

expect: must raise ValueError
diagnosis: your function checks nothing and needs arrays: misaligned or 2-D inputs and gamma or gae_lambda outside [0,
    1] must raise ValueError, and lists must work
"""

import numpy as np


def gae_advantages(rewards, values, next_values, terminated, trace_cuts, gamma, gae_lambda):
    n = rewards.shape[0]
    out = np.zeros(n)
    running = 0.0
    for t in reversed(range(n)):
        nv = 0.0 if terminated.flat[t] else next_values.flat[t]
        delta = rewards.flat[t] + gamma * nv - values.flat[t]
        running = delta + gamma * gae_lambda * (not trace_cuts.flat[t]) * running
        out[t] = running
    return out
