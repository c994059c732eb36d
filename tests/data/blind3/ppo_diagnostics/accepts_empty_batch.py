"""Never checks for an empty batch, which then returns nan fields instead of raising ValueError."""
import numpy as np


def ppo_diagnostics(new_log_prob, old_log_prob, advantage, clip_epsilon=0.2):
    new = np.asarray(new_log_prob, dtype=float)
    old = np.asarray(old_log_prob, dtype=float)
    a = np.asarray(advantage, dtype=float)
    if not (new.shape == old.shape == a.shape):
        raise ValueError("new_log_prob, old_log_prob and advantage must have the same shape")
    if not 0.0 < clip_epsilon < 1.0:
        raise ValueError("clip_epsilon must lie in (0, 1)")
    log_ratio = new - old
    ratio = np.exp(log_ratio)
    with np.errstate(invalid="ignore"):
        outside = np.mean((ratio < 1 - clip_epsilon) | (ratio > 1 + clip_epsilon)) if ratio.size else np.nan
        unclipped = ratio * a
        clipped = np.clip(ratio, 1 - clip_epsilon, 1 + clip_epsilon) * a
        active = np.mean(clipped < unclipped) if ratio.size else np.nan
        kl = np.mean(ratio - 1 - log_ratio) if ratio.size else np.nan
        mean_log = np.mean(log_ratio) if ratio.size else np.nan
    return PPODiagnostics(float(outside), float(active), float(kl), float(mean_log))
