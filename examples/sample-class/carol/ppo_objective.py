import numpy as np


def ppo_diagnostics(new_log_prob, old_log_prob, advantage, clip_epsilon=0.2):
    # Carol counts every ratio outside the interval as an active clip.
    new = np.asarray(new_log_prob, dtype=float)
    old = np.asarray(old_log_prob, dtype=float)
    a = np.asarray(advantage, dtype=float)
    if not new.shape == old.shape == a.shape:
        raise ValueError("shapes must match")
    if new.size == 0:
        raise ValueError("empty batch")
    log_ratio = new - old
    ratio = np.exp(log_ratio)
    outside = (ratio < 1 - clip_epsilon) | (ratio > 1 + clip_epsilon)
    return PPODiagnostics(float(outside.mean()), float(outside.mean()),
                          float(np.mean(ratio - 1 - log_ratio)), float(log_ratio.mean()))
