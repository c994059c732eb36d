"""Treats any reduction it does not recognise as token_mean.

expect: an unknown reduction must raise ValueError
diagnosis: your function treats an unrecognised reduction as token_mean: an unknown reduction must raise ValueError
"""

import numpy as np


def masked_token_ppo_objective(
    new_log_probs, old_log_probs, advantages, mask, clip_epsilon=0.2, reduction="token_mean"
):
    _, _, _, pessimistic = masked_token_ppo_terms(new_log_probs, old_log_probs, advantages, mask, clip_epsilon)
    active = np.asarray(mask, dtype=float) != 0
    if not np.any(active):
        return 0.0
    row_sums = np.sum(pessimistic, axis=1)
    if reduction == "sequence_sum_mean":
        return float(np.mean(row_sums))
    row_counts = np.sum(active, axis=1)
    if reduction == "sequence_mean":
        return float(np.mean(np.divide(row_sums, row_counts, out=np.zeros_like(row_sums), where=row_counts > 0)))
    return float(np.sum(pessimistic) / np.sum(active))
