"""correct: builds both masks with np.where over float arrays and walks the records with a while loop."""
import numpy as np


def gae_advantages(rewards, values, next_values, terminated, trace_cuts, gamma, gae_lambda):
    arrays = [np.asarray(x) for x in (rewards, values, next_values, terminated, trace_cuts)]
    shape = arrays[0].shape
    if len(shape) != 1 or any(a.shape != shape for a in arrays):
        raise ValueError("rewards, values, next_values, terminated and trace_cuts must be aligned 1-D arrays")
    for name, x in (("gamma", gamma), ("gae_lambda", gae_lambda)):
        if not (0.0 <= x <= 1.0):
            raise ValueError(f"{name} must lie in [0, 1], got {x}")
    r, v, nv = (a.astype(np.float64) for a in arrays[:3])
    bootstrap = np.where(arrays[3].astype(bool), 0.0, 1.0)
    carry = np.where(arrays[4].astype(bool), 0.0, 1.0)
    deltas = r + gamma * bootstrap * nv - v
    out = np.zeros(shape[0], dtype=np.float64)
    t = shape[0] - 1
    following = 0.0
    while t >= 0:
        out[t] = deltas[t] + gamma * gae_lambda * carry[t] * following
        following = out[t]
        t -= 1
    return out
