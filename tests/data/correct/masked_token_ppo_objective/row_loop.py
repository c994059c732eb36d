"""Calls masked_token_ppo_terms, then reduces row by row with Python loops and math.fsum."""
import math

import numpy as np


def masked_token_ppo_objective(
    new_log_probs, old_log_probs, advantages, mask, clip_epsilon=0.2, reduction="token_mean"
):
    if reduction not in ("token_mean", "sequence_mean", "sequence_sum_mean"):
        raise ValueError(f"unknown reduction {reduction!r}")
    _, _, _, pessimistic = masked_token_ppo_terms(  # noqa: F821 (the module's own function)
        new_log_probs, old_log_probs, advantages, mask, clip_epsilon)
    m = np.asarray(mask, dtype=float)
    rows = [[p for p, keep in zip(prow, mrow) if keep != 0] for prow, mrow in zip(pessimistic, m)]
    count = sum(len(row) for row in rows)
    if count == 0:
        return 0.0
    if reduction == "token_mean":
        return math.fsum(x for row in rows for x in row) / count
    if reduction == "sequence_sum_mean":
        return math.fsum(math.fsum(row) for row in rows) / len(rows)
    return math.fsum(math.fsum(row) / len(row) if row else 0.0 for row in rows) / len(rows)
