"""correct: counts every field in a Python loop over the flattened rows"""

import numpy as np


def ppo_diagnostics(new_log_prob, old_log_prob, advantage, clip_epsilon=0.2):
    new = np.array(new_log_prob, dtype=np.float64)
    old = np.array(old_log_prob, dtype=np.float64)
    adv = np.array(advantage, dtype=np.float64)
    if new.shape != old.shape or new.shape != adv.shape:
        raise ValueError("shapes differ")
    if new.size == 0:
        raise ValueError("the batch is empty")
    if not (0 < clip_epsilon < 1):
        raise ValueError("clip_epsilon must be in (0, 1)")
    low, high = 1.0 - clip_epsilon, 1.0 + clip_epsilon
    n_out = n_active = 0
    kl_sum = lr_sum = 0.0
    for n, o, a in zip(new.ravel(), old.ravel(), adv.ravel()):
        lr = float(n) - float(o)
        r = float(np.exp(lr))
        if r < low or r > high:
            n_out += 1
        if min(max(r, low), high) * a < r * a:
            n_active += 1
        kl_sum += float(np.expm1(lr)) - lr
        lr_sum += lr
    count = new.size
    return PPODiagnostics(n_out / count, n_active / count, kl_sum / count, lr_sum / count)
