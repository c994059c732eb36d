"""A = M @ delta, M[t, k] the product of gamma * lambda * (1 - cut_j) for j = t .. k - 1 (no loop over the recursion)."""
import numpy as np


def gae_advantages(rewards, values, next_values, terminated, trace_cuts, gamma, gae_lambda):
    arrays = [np.asarray(x, dtype=float) for x in (rewards, values, next_values)]
    term = np.asarray(terminated).astype(bool)
    cuts = np.asarray(trace_cuts).astype(bool)
    shapes = {a.shape for a in arrays} | {term.shape, cuts.shape}
    if len(shapes) != 1 or arrays[0].ndim != 1:
        raise ValueError("inputs must be aligned one-dimensional arrays")
    if not (0 <= gamma <= 1) or not (0 <= gae_lambda <= 1):
        raise ValueError("gamma and gae_lambda must lie in [0, 1]")
    r, v, nv = arrays
    delta = r + gamma * np.where(term, 0.0, nv) - v
    carry = gamma * gae_lambda * (~cuts)
    n = len(r)
    weights = np.zeros((n, n))
    for t in range(n):
        weights[t, t:] = np.concatenate(([1.0], np.cumprod(carry[t:n - 1])))
    return weights @ delta
