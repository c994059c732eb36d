"""A backward loop over plain Python values, the two masks read with if statements."""
import numpy as np


def gae_advantages(rewards, values, next_values, terminated, trace_cuts, gamma, gae_lambda):
    r = np.asarray(rewards, dtype=float)
    columns = [np.asarray(x) for x in (values, next_values, terminated, trace_cuts)]
    if r.ndim != 1 or any(c.shape != r.shape for c in columns):
        raise ValueError("inputs must be aligned one-dimensional arrays")
    if gamma < 0 or gamma > 1 or gae_lambda < 0 or gae_lambda > 1:
        raise ValueError("gamma and gae_lambda must lie in [0, 1]")
    v, nv, term, cuts = (c.tolist() for c in columns)
    out = [0.0] * len(r)
    later = 0.0
    for t in range(len(r) - 1, -1, -1):
        target = r[t] if term[t] else r[t] + gamma * float(nv[t])
        later = target - float(v[t]) + (0.0 if cuts[t] else gamma * gae_lambda * later)
        out[t] = later
    return np.array(out, dtype=float)
