"""correct: computes all TD errors and carry factors vectorised, then runs the backward recursion over Python lists."""
import numpy as np


def gae_advantages(rewards, values, next_values, terminated, trace_cuts, gamma, gae_lambda):
    r = np.asarray(rewards, dtype=float)
    v = np.asarray(values, dtype=float)
    nv = np.asarray(next_values, dtype=float)
    term = np.asarray(terminated, dtype=bool)
    cut = np.asarray(trace_cuts, dtype=bool)
    if r.ndim != 1 or any(a.shape != r.shape for a in (v, nv, term, cut)):
        raise ValueError("inputs must be aligned one-dimensional arrays")
    if not (0.0 <= gamma <= 1.0 and 0.0 <= gae_lambda <= 1.0):
        raise ValueError("gamma and gae_lambda must lie in [0, 1]")
    # np.where, not a product, so an unused next value (inf at a terminal) cannot leak in.
    deltas = (r + np.where(term, 0.0, gamma * nv) - v).tolist()
    carry = np.where(cut, 0.0, gamma * gae_lambda).tolist()
    out = [0.0] * len(deltas)
    following = 0.0
    for t in range(len(deltas) - 1, -1, -1):
        following = deltas[t] + carry[t] * following
        out[t] = following
    return np.array(out, dtype=float)
