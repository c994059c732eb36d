"""Takes old - new as the log-ratio, so every diagnostic is computed from pi_old / pi_new.

expect: the ratio is inverted
diagnosis: your diagnostics use old_log_prob - new_log_prob as log r: the ratio is inverted (pi_old / pi_new), which
    changes every field; r is the new policy's probability over the old one's
"""

import numpy as np


def ppo_diagnostics(new_log_prob, old_log_prob, advantage, clip_epsilon=0.2):
    new = np.asarray(new_log_prob, dtype=float)
    old = np.asarray(old_log_prob, dtype=float)
    a = np.asarray(advantage, dtype=float)
    if not new.shape == old.shape == a.shape or new.size == 0:
        raise ValueError("new_log_prob, old_log_prob and advantage must have one common, non-empty shape")
    log_ratio = old - new
    ratio = np.exp(log_ratio)
    unclipped, _, pessimistic = ppo_clipped_terms(ratio, a, clip_epsilon)  # noqa: F821
    low, high = 1.0 - clip_epsilon, 1.0 + clip_epsilon
    return PPODiagnostics(  # noqa: F821
        ratio_outside_fraction=float(np.mean((ratio < low) | (ratio > high))),
        active_clip_fraction=float(np.mean(pessimistic < unclipped)),
        approx_kl_nonnegative=float(np.mean(ratio - 1.0 - log_ratio)),
        mean_log_ratio=float(np.mean(log_ratio)),
    )
