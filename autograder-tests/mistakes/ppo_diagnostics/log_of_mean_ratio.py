"""Reports the log of the mean ratio, log(mean(r)), as mean_log_ratio instead of the mean of the log-ratios.

expect: log of the mean ratio
diagnosis: your mean_log_ratio is the log of the mean ratio: the log and the mean do not commute (log of a mean is
    at least the mean of the logs); average the log-ratios themselves
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
    unclipped, _, pessimistic = ppo_clipped_terms(ratio, a, clip_epsilon)  # noqa: F821
    outside = (ratio < 1.0 - clip_epsilon) | (ratio > 1.0 + clip_epsilon)
    return PPODiagnostics(  # noqa: F821
        ratio_outside_fraction=float(np.mean(outside)),
        active_clip_fraction=float(np.mean(pessimistic < unclipped)),
        approx_kl_nonnegative=float(np.mean((ratio - 1.0) - log_ratio)),
        mean_log_ratio=float(np.log(np.mean(ratio))),
    )
