"""Vectorised over segments: within a run of uncut records, A_t = sum_k c^(k-t) delta_k, via discounting by powers."""
import numpy as np


def gae_advantages(rewards, values, next_values, terminated, trace_cuts, gamma, gae_lambda):
    r = np.asarray(rewards, dtype=float)
    v = np.asarray(values, dtype=float)
    nv = np.asarray(next_values, dtype=float)
    term = np.asarray(terminated, dtype=bool)
    cuts = np.asarray(trace_cuts, dtype=bool)
    if r.ndim != 1 or not (r.shape == v.shape == nv.shape == term.shape == cuts.shape):
        raise ValueError("inputs must be aligned one-dimensional arrays")
    if not (0 <= gamma <= 1 and 0 <= gae_lambda <= 1):
        raise ValueError("gamma and gae_lambda must lie in [0, 1]")
    delta = r + gamma * (1.0 - term) * nv - v
    c = gamma * gae_lambda
    out = np.zeros_like(delta)
    start = 0
    for end in list(np.flatnonzero(cuts)) + [len(r) - 1]:
        seg = delta[start:end + 1]
        lag = np.arange(len(seg))[None, :] - np.arange(len(seg))[:, None]
        out[start:end + 1] = np.where(lag >= 0, np.power(c, np.maximum(lag, 0)), 0.0) @ seg
        start = end + 1
    return out
