"""correct: accumulates each row's sum and token count in a Python loop, then applies the reduction"""

import numpy as np


def masked_token_ppo_objective(
    new_log_probs, old_log_probs, advantages, mask, clip_epsilon=0.2, reduction="token_mean"
):
    terms = masked_token_ppo_terms(new_log_probs, old_log_probs, advantages, mask, clip_epsilon)
    if reduction not in REDUCTIONS:
        raise ValueError("reduction must be one of " + ", ".join(REDUCTIONS))
    pessimistic = terms[3]
    keep = np.array(mask, dtype=np.float64) != 0
    row_sums, row_counts = [], []
    for row_terms, row_keep in zip(pessimistic, keep):
        row_sums.append(float(row_terms[row_keep].sum()))
        row_counts.append(int(row_keep.sum()))
    total_tokens = sum(row_counts)
    if total_tokens == 0:
        return 0.0
    batch = len(row_sums)
    if reduction == "token_mean":
        return sum(row_sums) / total_tokens
    if reduction == "sequence_mean":
        return sum(s / c for s, c in zip(row_sums, row_counts) if c) / batch
    return sum(row_sums) / batch
