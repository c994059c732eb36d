"""Sets masked log-probs to 0 in the caller's arrays before computing the terms.

expect: modifies its input arrays
diagnosis: your function overwrites masked log-probs in the caller's arrays: it modifies its input arrays; use
    np.where on copies
"""

import numpy as np


def masked_token_ppo_objective(
    new_log_probs, old_log_probs, advantages, mask, clip_epsilon=0.2, reduction="token_mean"
):
    if reduction not in REDUCTIONS:
        raise ValueError(f"unknown reduction {reduction!r}")
    new = np.asarray(new_log_probs, dtype=float)
    old = np.asarray(old_log_probs, dtype=float)
    active = np.asarray(mask, dtype=float) != 0
    if new.shape == active.shape == old.shape:
        new[~active] = 0.0
        old[~active] = 0.0
    _, _, _, pessimistic = masked_token_ppo_terms(new, old, advantages, mask, clip_epsilon)
    if not np.any(active):
        return 0.0
    if reduction == "token_mean":
        return float(np.sum(pessimistic) / np.sum(active))
    row_sums = np.sum(pessimistic, axis=1)
    if reduction == "sequence_sum_mean":
        return float(np.mean(row_sums))
    row_counts = np.sum(active, axis=1)
    return float(np.mean(np.divide(row_sums, row_counts, out=np.zeros_like(row_sums), where=row_counts > 0)))
