"""correct: precomputes the carry coefficient array with np.where and accumulates Python floats into a list"""

import numpy as np


def gae_advantages(rewards, values, next_values, terminated, trace_cuts, gamma, gae_lambda):
    arrays = [np.array(x, dtype=np.float64) for x in (rewards, values, next_values)]
    masks = [np.array(x, dtype=bool) for x in (terminated, trace_cuts)]
    shape = arrays[0].shape
    if len(shape) != 1 or any(a.shape != shape for a in arrays + masks):
        raise ValueError("inputs must be aligned one-dimensional arrays")
    if not (0 <= gamma <= 1) or not (0 <= gae_lambda <= 1):
        raise ValueError("gamma and gae_lambda must be in [0, 1]")
    r, v, nv = arrays
    term, cuts = masks
    bootstrap = np.where(term, 0.0, nv)
    delta = r + gamma * bootstrap - v
    carry = np.where(cuts, 0.0, gamma * gae_lambda)
    out = []
    acc = 0.0
    for d, c in zip(delta[::-1], carry[::-1]):
        acc = float(d) + float(c) * acc
        out.append(acc)
    return np.array(out[::-1], dtype=np.float64)
