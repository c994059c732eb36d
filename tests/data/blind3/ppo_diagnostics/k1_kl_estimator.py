"""Estimates the KL as the mean of -log r (old minus new log-probability), which can be negative, instead of (r - 1) - log r."""
import numpy as np


def ppo_diagnostics(new_log_prob, old_log_prob, advantage, clip_epsilon=0.2):
    new = np.asarray(new_log_prob, dtype=float)
    old = np.asarray(old_log_prob, dtype=float)
    a = np.asarray(advantage, dtype=float)
    if not (new.shape == old.shape == a.shape):
        raise ValueError("new_log_prob, old_log_prob and advantage must have the same shape")
    if new.size == 0:
        raise ValueError("the batch is empty")
    if not 0.0 < clip_epsilon < 1.0:
        raise ValueError("clip_epsilon must lie in (0, 1)")
    log_ratio = new - old
    ratio = np.exp(log_ratio)
    outside = np.mean((ratio < 1 - clip_epsilon) | (ratio > 1 + clip_epsilon))
    unclipped = ratio * a
    clipped = np.clip(ratio, 1 - clip_epsilon, 1 + clip_epsilon) * a
    active = np.mean(clipped < unclipped)
    return PPODiagnostics(float(outside), float(active),
                          float(np.mean(-log_ratio)), float(np.mean(log_ratio)))
