"""Reports the fraction of ratios outside the interval as active_clip_fraction instead of the fraction where clipping changed the minimum."""
import numpy as np


def ppo_diagnostics(new_log_prob, old_log_prob, advantage, clip_epsilon=0.2):
    log_ratio = np.asarray(new_log_prob, dtype=float) - np.asarray(old_log_prob, dtype=float)
    ratio = np.exp(log_ratio)
    a = np.asarray(advantage, dtype=float)
    ppo_clipped_terms(ratio, a, clip_epsilon)
    outside = np.mean((ratio < 1 - clip_epsilon) | (ratio > 1 + clip_epsilon))
    approx_kl = np.mean((ratio - 1) - log_ratio)
    return PPODiagnostics(float(outside), float(outside), float(approx_kl), float(np.mean(log_ratio)))
