"""uses r log r - (r - 1), the estimator of KL(new || old), instead of (r - 1) - log r"""

import numpy as np


def ppo_diagnostics(new_log_prob, old_log_prob, advantage, clip_epsilon=0.2):
    new = np.asarray(new_log_prob, dtype=float)
    old = np.asarray(old_log_prob, dtype=float)
    a = np.asarray(advantage, dtype=float)
    if not (new.shape == old.shape == a.shape):
        raise ValueError("inputs must have the same shape")
    if new.size == 0:
        raise ValueError("empty batch")
    if not 0.0 < clip_epsilon < 1.0:
        raise ValueError("clip_epsilon must lie in (0, 1)")
    log_ratio = new - old
    r = np.exp(log_ratio)
    lo, hi = 1 - clip_epsilon, 1 + clip_epsilon
    unclipped = r * a
    clipped = np.clip(r, lo, hi) * a
    outside = np.mean((r < lo) | (r > hi))

    active = np.mean(clipped < unclipped)

    kl = np.mean(r * log_ratio - (r - 1))

    return PPODiagnostics(float(outside), float(active), float(kl), float(np.mean(log_ratio)))
