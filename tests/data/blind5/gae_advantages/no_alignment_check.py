"""Does not check that the five inputs are aligned vectors, so a scalar terminated or trace_cuts flag silently broadcasts instead of raising ValueError."""
import numpy as np


def gae_advantages(rewards, values, next_values, terminated, trace_cuts, gamma, gae_lambda):
    if not (0.0 <= gamma <= 1.0 and 0.0 <= gae_lambda <= 1.0):
        raise ValueError("gamma and gae_lambda must lie in [0, 1]")
    r = np.asarray(rewards, dtype=float)
    T = len(r)
    v = np.broadcast_to(np.asarray(values, dtype=float), (T,))
    nv = np.broadcast_to(np.asarray(next_values, dtype=float), (T,))
    term = np.broadcast_to(np.asarray(terminated, dtype=bool), (T,))
    cuts = np.broadcast_to(np.asarray(trace_cuts, dtype=bool), (T,))
    deltas = r + gamma * (~term) * nv - v
    result = np.empty(T)
    running = 0.0
    for t in range(T - 1, -1, -1):
        running = deltas[t] + gamma * gae_lambda * (not cuts[t]) * running
        result[t] = running
    return result
