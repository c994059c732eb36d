"""The module's own test of an active clip, with its margin: pessimistic < unclipped - 1e-15."""
import numpy as np


def ppo_diagnostics(new_log_prob, old_log_prob, advantage, clip_epsilon=0.2):
    new, old, a = (np.asarray(x, dtype=float) for x in (new_log_prob, old_log_prob, advantage))
    if new.shape != old.shape or new.shape != a.shape or new.size == 0:
        raise ValueError("new_log_prob, old_log_prob and advantage must be aligned and non-empty")
    log_ratio = new - old
    ratio = np.exp(log_ratio)
    unclipped, _, pessimistic = ppo_clipped_terms(ratio, a, clip_epsilon)  # noqa: F821 (the course's, above)
    return PPODiagnostics(  # noqa: F821 (the dataclass of the module above)
        ratio_outside_fraction=float(np.mean((ratio < 1 - clip_epsilon) | (ratio > 1 + clip_epsilon))),
        active_clip_fraction=float(np.mean(pessimistic < unclipped - 1e-15)),
        approx_kl_nonnegative=float(np.mean((ratio - 1) - log_ratio)),
        mean_log_ratio=float(np.mean(log_ratio)),
    )
