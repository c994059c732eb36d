"""Forms the log-ratio as old minus new, so the ratio is old/new and every diagnostic is computed on the inverted ratio."""
import numpy as np


def ppo_diagnostics(new_log_prob, old_log_prob, advantage, clip_epsilon=0.2):
    log_ratio = np.asarray(old_log_prob, dtype=float) - np.asarray(new_log_prob, dtype=float)
    ratio = np.exp(log_ratio)
    a = np.asarray(advantage, dtype=float)
    unclipped, _, pessimistic = ppo_clipped_terms(ratio, a, clip_epsilon)
    outside = np.mean((ratio < 1 - clip_epsilon) | (ratio > 1 + clip_epsilon))
    active = np.mean(pessimistic < unclipped - 1e-15)
    approx_kl = np.mean((ratio - 1) - log_ratio)
    return PPODiagnostics(float(outside), float(active), float(approx_kl), float(np.mean(log_ratio)))
