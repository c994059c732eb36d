"""Divides each row sum by its count without a guard, so an empty row makes sequence_mean nan.

expect: makes sequence_mean nan
diagnosis: your sequence_mean divides an empty row's sum by its count of 0: a row without response tokens makes
    sequence_mean nan, but it contributes 0
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
    row_sums = np.sum(pessimistic, axis=1)
    if reduction == "sequence_sum_mean":
        return float(np.mean(row_sums))
    return float(np.mean(row_sums / np.sum(active, axis=1)))
