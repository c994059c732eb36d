"""Makes sequence_mean the default reduction.

expect: the default reduction must be token_mean
diagnosis: your default reduction is sequence_mean: the default reduction must be token_mean
"""

import numpy as np


def masked_token_ppo_objective(
    new_log_probs, old_log_probs, advantages, mask, clip_epsilon=0.2, reduction="sequence_mean"
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
    row_counts = np.sum(active, axis=1)
    return float(np.mean(np.divide(row_sums, row_counts, out=np.zeros_like(row_sums), where=row_counts > 0)))
