"""Estimates KL(new || old) with r log r - (r - 1) instead of the stated (r - 1) - log r.

expect: KL(new || old)
diagnosis: your approx_kl_nonnegative is the mean of r log r - (r - 1), an estimate of KL(new || old), the other
    direction: the stated estimator is the mean of (r - 1) - log r
"""

import numpy as np


def ppo_diagnostics(new_log_prob, old_log_prob, advantage, clip_epsilon=0.2):
    new = np.asarray(new_log_prob, dtype=float)
    old = np.asarray(old_log_prob, dtype=float)
    a = np.asarray(advantage, dtype=float)
    if not new.shape == old.shape == a.shape or new.size == 0:
        raise ValueError("new_log_prob, old_log_prob and advantage must have one common, non-empty shape")
    log_ratio = new - old
    ratio = np.exp(log_ratio)
    unclipped, clipped, pessimistic = ppo_clipped_terms(ratio, a, clip_epsilon)  # noqa: F821
    outside = (ratio < 1 - clip_epsilon) | (ratio > 1 + clip_epsilon)
    active = pessimistic < unclipped
    return PPODiagnostics(  # noqa: F821
        ratio_outside_fraction=float(np.mean(outside)),
        active_clip_fraction=float(np.mean(active)),
        approx_kl_nonnegative=float(np.mean(ratio * log_ratio - (ratio - 1))),
        mean_log_ratio=float(np.mean(log_ratio)),
    )
