"""Computes token_mean as the mean of the per-response means.

expect: token_mean averages per response first
diagnosis: your token_mean averages per response first: token_mean divides the sum over all response tokens of the
    batch by their count
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
    row_sums = np.sum(pessimistic, axis=1)
    row_counts = np.sum(active, axis=1)
    row_means = np.divide(row_sums, row_counts, out=np.zeros_like(row_sums), where=row_counts > 0)
    if reduction in ("token_mean", "sequence_mean"):
        return float(np.mean(row_means))
    return float(np.mean(row_sums))
