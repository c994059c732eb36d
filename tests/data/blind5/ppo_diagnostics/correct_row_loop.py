"""correct: counts outside and active rows in a Python loop, comparing the pessimistic minimum with the unclipped term per row."""
import math
import numpy as np


def ppo_diagnostics(new_log_prob, old_log_prob, advantage, clip_epsilon=0.2):
    new = np.asarray(new_log_prob, dtype=float)
    old = np.asarray(old_log_prob, dtype=float)
    adv = np.asarray(advantage, dtype=float)
    if not new.shape == old.shape == adv.shape:
        raise ValueError("new_log_prob, old_log_prob and advantage must have the same shape")
    if new.size == 0:
        raise ValueError("an empty batch has no diagnostics")
    new, old = new.ravel(), old.ravel()
    log_r = new - old
    ratios = np.exp(log_r)
    unclipped, clipped, pessimistic = ppo_clipped_terms(ratios.reshape(adv.shape), adv, clip_epsilon)
    unclipped, pessimistic = unclipped.ravel(), pessimistic.ravel()
    n = ratios.size
    outside = active = 0
    kl_sum = 0.0
    for i in range(n):
        if ratios[i] < 1.0 - clip_epsilon or ratios[i] > 1.0 + clip_epsilon:
            outside += 1
        if pessimistic[i] < unclipped[i] - 1e-15:   # clipping changed the minimum
            active += 1
        kl_sum += (ratios[i] - 1.0) - log_r[i]       # k3 estimator, >= 0 per sample
    return PPODiagnostics(
        ratio_outside_fraction=outside / n,
        active_clip_fraction=active / n,
        approx_kl_nonnegative=float(kl_sum / n),
        mean_log_ratio=float(math.fsum(log_r) / n),
    )
