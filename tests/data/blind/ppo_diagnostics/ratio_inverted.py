"""uses old - new as the log-ratio, i.e. the ratio pi_old / pi_new"""
import numpy as np


def ppo_diagnostics(new_log_prob, old_log_prob, advantage, clip_epsilon=0.2):
    # PPODiagnostics is the course-provided dataclass defined in the exercise module.
    new = np.asarray(new_log_prob, dtype=float)
    old = np.asarray(old_log_prob, dtype=float)
    a = np.asarray(advantage, dtype=float)
    if not (new.shape == old.shape == a.shape):
        raise ValueError("new_log_prob, old_log_prob and advantage must have the same shape")
    if new.size == 0:
        raise ValueError("the batch is empty")
    if not 0.0 < clip_epsilon < 1.0:
        raise ValueError("clip_epsilon must lie in (0, 1)")
    log_ratio = old - new
    r = np.exp(log_ratio)
    unclipped = r * a
    clipped = np.clip(r, 1.0 - clip_epsilon, 1.0 + clip_epsilon) * a
    outside = np.mean((r < 1.0 - clip_epsilon) | (r > 1.0 + clip_epsilon))
    active = np.mean(clipped < unclipped)
    approx_kl = np.mean((r - 1.0) - log_ratio)
    mean_log_ratio = np.mean(log_ratio)
    return PPODiagnostics(float(outside), float(active), float(approx_kl), float(mean_log_ratio))
