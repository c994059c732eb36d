"""GAE that returns a column (T, 1) instead of one advantage per transition.

module: gae
expect: gae_advantages returned shape
"""
import numpy as np


def gae_advantages(rewards, values, next_values, terminated, trace_cuts, gamma, gae_lambda):
    r = np.asarray(rewards, dtype=float)
    v = np.asarray(values, dtype=float)
    nv = np.asarray(next_values, dtype=float)
    term = np.asarray(terminated, dtype=bool)
    cuts = np.asarray(trace_cuts, dtype=bool)
    deltas = r + gamma * np.where(term, 0.0, nv) - v
    out = np.zeros((len(r), 1))
    running = 0.0
    for t in reversed(range(len(r))):
        running = deltas[t] + gamma * gae_lambda * (not cuts[t]) * running
        out[t, 0] = running
    return out
