"""Uses the k2 estimator mean((log r)^2) / 2 instead of the stated mean of (r - 1) - log r.

expect: not k2
diagnosis: your approx_kl_nonnegative is the k2 estimator mean((log r)^2) / 2; it must be the stated estimator, the
    mean of (r - 1) - log r, not k2
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
        approx_kl_nonnegative=float(np.mean(log_ratio**2) / 2),
        mean_log_ratio=float(np.mean(log_ratio)),
    )
