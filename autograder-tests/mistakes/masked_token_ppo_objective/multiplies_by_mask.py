"""Computes the terms itself and masks by multiplication, so -inf at a masked position gives nan.

expect: leaks through multiplication by the mask
diagnosis: your objective masks by multiplication: a -inf or nan log-prob at a masked position leaks through
    multiplication by the mask (0 * -inf is nan); use np.where
"""

import numpy as np


def masked_token_ppo_objective(
    new_log_probs, old_log_probs, advantages, mask, clip_epsilon=0.2, reduction="token_mean"
):
    if reduction not in REDUCTIONS:
        raise ValueError(f"unknown reduction {reduction!r}")
    masked_token_ppo_terms(new_log_probs, old_log_probs, advantages, mask, clip_epsilon)  # validation only
    m = np.asarray(mask, dtype=float)
    adv = np.asarray(advantages, dtype=float)
    adv = adv[:, None] if adv.ndim == 1 else adv
    ratio = np.exp(np.asarray(new_log_probs, dtype=float) - np.asarray(old_log_probs, dtype=float))
    pessimistic = np.minimum(ratio * adv, np.clip(ratio, 1 - clip_epsilon, 1 + clip_epsilon) * adv) * m
    active = m != 0
    if not np.any(active):
        return 0.0
    if reduction == "token_mean":
        return float(np.sum(pessimistic) / np.sum(active))
    row_sums = np.sum(pessimistic, axis=1)
    if reduction == "sequence_sum_mean":
        return float(np.mean(row_sums))
    row_counts = np.sum(active, axis=1)
    return float(np.mean(np.divide(row_sums, row_counts, out=np.zeros_like(row_sums), where=row_counts > 0)))
