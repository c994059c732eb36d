"""correct: builds each action's score vector with grad_log_softmax in a loop and forms the ratio of p-weighted sums."""
import numpy as np


def optimal_constant_baseline(logits, action_values):
    z = np.asarray(logits, dtype=float)
    q = np.asarray(action_values, dtype=float)
    if z.ndim != 1 or q.shape != z.shape:
        raise ValueError("logits and action_values must be aligned 1-D arrays")
    p = stable_softmax(z)
    num = 0.0
    den = 0.0
    for a in range(z.size):
        s = grad_log_softmax(z, a)
        w = p[a] * float(s @ s)          # p(a) * ||grad log pi(a)||^2
        num += w * q[a]
        den += w
    if den <= 0.0:
        raise ValueError("the score has zero norm for every action")
    return float(num / den)
