"""correct: decides activity by rule (A > 0 and r > 1 + eps, or A < 0 and r < 1 - eps) without forming the clipped terms"""
import numpy as np


def ppo_diagnostics(new_log_prob, old_log_prob, advantage, clip_epsilon=0.2):
    # PPODiagnostics is the course-provided dataclass defined in the exercise module.
    new = np.asarray(new_log_prob, dtype=float).ravel()
    old = np.asarray(old_log_prob, dtype=float)
    adv = np.asarray(advantage, dtype=float)
    if not (np.shape(new_log_prob) == old.shape == adv.shape) or new.size < 1:
        raise ValueError("need three arrays of one shape with at least one element")
    if not 0.0 < clip_epsilon < 1.0:
        raise ValueError("clip_epsilon must lie in (0, 1)")
    old, adv = old.ravel(), adv.ravel()
    log_r = new - old
    r = np.exp(log_r)
    above, below = r > 1.0 + clip_epsilon, r < 1.0 - clip_epsilon
    active = (above & (adv > 0)) | (below & (adv < 0))
    n = float(new.size)
    return PPODiagnostics(
        ratio_outside_fraction=float(np.count_nonzero(above | below) / n),
        active_clip_fraction=float(np.count_nonzero(active) / n),
        approx_kl_nonnegative=float(np.sum(np.expm1(log_r) - log_r) / n),
        mean_log_ratio=float(np.sum(log_r) / n),
    )
