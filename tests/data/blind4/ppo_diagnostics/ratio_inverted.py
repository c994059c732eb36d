"""Forms the ratio as old over new (log r = old - new) instead of new over old."""
import numpy as np


def ppo_diagnostics(new_log_prob, old_log_prob, advantage, clip_epsilon=0.2):
    new = np.asarray(new_log_prob, dtype=float)
    old = np.asarray(old_log_prob, dtype=float)
    adv = np.asarray(advantage, dtype=float)
    if new.shape != old.shape or new.shape != adv.shape:
        raise ValueError("shapes differ")
    if new.size == 0:
        raise ValueError("empty batch")
    if not 0.0 < clip_epsilon < 1.0:
        raise ValueError("clip_epsilon must lie in (0, 1)")
    log_r = old - new
    r = np.exp(log_r)
    low, high = 1.0 - clip_epsilon, 1.0 + clip_epsilon
    unclipped = r * adv
    clipped = np.clip(r, low, high) * adv
    return PPODiagnostics(
        float(np.mean((r < low) | (r > high))),
        float(np.mean(clipped < unclipped)),
        float(np.mean((r - 1.0) - log_r)),
        float(np.mean(log_r)),
    )
