"""Vectorised with expm1 for the KL terms, and the sign rule for rows where clipping is active."""
import numpy as np


def ppo_diagnostics(new_log_prob, old_log_prob, advantage, clip_epsilon=0.2):
    new, old, a = (np.asarray(x, dtype=float) for x in (new_log_prob, old_log_prob, advantage))
    if new.shape != old.shape or new.shape != a.shape or new.size == 0 or not 0 < clip_epsilon < 1:
        raise ValueError("aligned, non-empty inputs and 0 < clip_epsilon < 1 are required")
    log_ratio = new - old
    ratio = np.exp(log_ratio)
    outside = (ratio > 1 + clip_epsilon) | (ratio < 1 - clip_epsilon)
    active = ((a > 0) & (ratio > 1 + clip_epsilon)) | ((a < 0) & (ratio < 1 - clip_epsilon))
    return PPODiagnostics(  # noqa: F821 (the dataclass of the module above)
        ratio_outside_fraction=float(outside.mean()),
        active_clip_fraction=float(active.mean()),
        approx_kl_nonnegative=float(np.mean(np.expm1(log_ratio) - log_ratio)),
        mean_log_ratio=float(log_ratio.mean()),
    )
