"""Correct arithmetic but no validation, and it needs arrays (subtracts its inputs directly).

expect: must raise ValueError
diagnosis: your function checks nothing and needs arrays: different shapes, an empty batch and clip_epsilon outside
    (0, 1) must raise ValueError
"""

import numpy as np


def ppo_diagnostics(new_log_prob, old_log_prob, advantage, clip_epsilon=0.2):
    a = advantage
    log_ratio = new_log_prob - old_log_prob
    ratio = np.exp(log_ratio)
    unclipped = ratio * a
    pessimistic = np.minimum(unclipped, np.clip(ratio, 1 - clip_epsilon, 1 + clip_epsilon) * a)
    outside = (ratio < 1 - clip_epsilon) | (ratio > 1 + clip_epsilon)
    active = pessimistic < unclipped
    return PPODiagnostics(  # noqa: F821
        ratio_outside_fraction=float(np.mean(outside)),
        active_clip_fraction=float(np.mean(active)),
        approx_kl_nonnegative=float(np.mean((ratio - 1) - log_ratio)),
        mean_log_ratio=float(np.mean(log_ratio)),
    )
