"""correct: counts rows with np.count_nonzero over the batch size and reuses ppo_clipped_terms for both branches."""
import numpy as np


def ppo_diagnostics(new_log_prob, old_log_prob, advantage, clip_epsilon=0.2):
    new = np.array(new_log_prob, dtype=np.float64)
    old = np.array(old_log_prob, dtype=np.float64)
    adv = np.array(advantage, dtype=np.float64)
    if new.shape != old.shape or new.shape != adv.shape:
        raise ValueError("new_log_prob, old_log_prob and advantage must share one shape")
    n = new.size
    if n == 0:
        raise ValueError("empty batch")
    if not (0.0 < clip_epsilon < 1.0):
        raise ValueError(f"clip_epsilon must lie in (0, 1), got {clip_epsilon}")
    log_r = new - old
    r = np.exp(log_r)
    unclipped, clipped, _ = ppo_clipped_terms(r, adv, clip_epsilon)
    outside = np.count_nonzero((r < 1.0 - clip_epsilon) | (r > 1.0 + clip_epsilon)) / n
    active = np.count_nonzero(clipped < unclipped) / n
    kl = np.sum(np.expm1(log_r) - log_r) / n
    return PPODiagnostics(
        ratio_outside_fraction=float(outside),
        active_clip_fraction=float(active),
        approx_kl_nonnegative=float(kl),
        mean_log_ratio=float(np.sum(log_r) / n),
    )
