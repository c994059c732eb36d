"""correct: counts with np.count_nonzero and divides by the batch size; the KL terms use expm1."""
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
    log_r = (new - old).ravel()
    r = np.exp(log_r)
    n = log_r.size
    outside = np.count_nonzero((r < 1.0 - clip_epsilon) | (r > 1.0 + clip_epsilon))
    clipped = np.clip(r, 1.0 - clip_epsilon, 1.0 + clip_epsilon) * adv.ravel()
    active = np.count_nonzero(clipped < r * adv.ravel())
    return PPODiagnostics(
        ratio_outside_fraction=float(outside / n),
        active_clip_fraction=float(active / n),
        approx_kl_nonnegative=float(np.sum(np.expm1(log_r) - log_r) / n),
        mean_log_ratio=float(np.sum(log_r) / n),
    )
