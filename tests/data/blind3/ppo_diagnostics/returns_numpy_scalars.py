"""Stores 0-d numpy arrays in the dataclass instead of converting each field to a Python float."""
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
    return PPODiagnostics(np.asarray(outside), np.asarray(active),
                          np.asarray(np.mean(ratio - 1 - log_ratio)), np.asarray(np.mean(log_ratio)))
