"""correct: stores the next record's advantage explicitly and decides per record whether to bootstrap and whether to carry it, instead of a running scalar."""
import numpy as np


def gae_advantages(rewards, values, next_values, terminated, trace_cuts, gamma, gae_lambda):
    arrays = [np.asarray(x) for x in (rewards, values, next_values, terminated, trace_cuts)]
    shapes = {a.shape for a in arrays}
    if len(shapes) != 1 or arrays[0].ndim != 1:
        raise ValueError("rewards, values, next_values, terminated and trace_cuts must be aligned vectors")
    if not 0.0 <= gamma <= 1.0:
        raise ValueError("gamma must be in [0, 1]")
    if not 0.0 <= gae_lambda <= 1.0:
        raise ValueError("gae_lambda must be in [0, 1]")
    r, v, nv = (a.astype(float) for a in arrays[:3])
    term, cut = arrays[3].astype(bool), arrays[4].astype(bool)
    T = r.shape[0]
    adv = np.zeros(T)
    for t in reversed(range(T)):
        bootstrap = 0.0 if term[t] else gamma * nv[t]       # does a next-state value exist?
        delta = r[t] + bootstrap - v[t]
        carry = 0.0 if (cut[t] or t == T - 1) else gamma * gae_lambda * adv[t + 1]  # same trace?
        adv[t] = delta + carry
    return adv
