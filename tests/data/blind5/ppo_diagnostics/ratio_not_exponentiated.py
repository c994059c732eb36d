"""Uses the log-ratio new - old itself as the probability ratio, forgetting to exponentiate it."""
import numpy as np


def ppo_diagnostics(new_log_prob, old_log_prob, advantage, clip_epsilon=0.2):
    log_ratio = np.asarray(new_log_prob, dtype=float) - np.asarray(old_log_prob, dtype=float)
    ratio = log_ratio  # new - old
    a = np.asarray(advantage, dtype=float)
    unclipped = ratio * a
    clipped = np.clip(ratio, 1 - clip_epsilon, 1 + clip_epsilon) * a
    pessimistic = np.minimum(unclipped, clipped)
    outside = np.mean((ratio < 1 - clip_epsilon) | (ratio > 1 + clip_epsilon))
    active = np.mean(pessimistic < unclipped - 1e-15)
    approx_kl = np.mean((np.exp(log_ratio) - 1) - log_ratio)
    return PPODiagnostics(float(outside), float(active), float(approx_kl), float(np.mean(log_ratio)))
