"""Computes sequence_mean as the sum over the batch divided by the total token count.

expect: sequence_mean divides by the total token count
diagnosis: your sequence_mean pools all tokens: sequence_mean divides by the total token count, but it must average
    each response's tokens first, then the B responses
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
    if reduction in ("token_mean", "sequence_mean"):
        return float(np.sum(pessimistic) / np.sum(active))
    return float(np.mean(np.sum(pessimistic, axis=1)))
