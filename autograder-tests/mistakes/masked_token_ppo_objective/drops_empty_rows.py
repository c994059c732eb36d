"""Averages only over rows that have response tokens (empty rows are left out of the mean).

expect: rows without response tokens are dropped from the mean
diagnosis: your means leave out responses without tokens: rows without response tokens are dropped from the mean, but
    they contribute 0 and still count among the B rows
"""

import numpy as np


def masked_token_ppo_objective(
    new_log_probs, old_log_probs, advantages, mask, clip_epsilon=0.2, reduction="token_mean"
):
    if reduction not in REDUCTIONS:
        raise ValueError(f"unknown reduction {reduction!r}")
    _, _, _, pessimistic = masked_token_ppo_terms(new_log_probs, old_log_probs, advantages, mask, clip_epsilon)
    active = np.asarray(mask, dtype=float) != 0
    if not np.any(active):
        return 0.0
    if reduction == "token_mean":
        return float(np.sum(pessimistic) / np.sum(active))
    row_counts = np.sum(active, axis=1)
    kept = row_counts > 0
    row_sums = np.sum(pessimistic, axis=1)[kept]
    if reduction == "sequence_sum_mean":
        return float(np.mean(row_sums))
    return float(np.mean(row_sums / row_counts[kept]))
