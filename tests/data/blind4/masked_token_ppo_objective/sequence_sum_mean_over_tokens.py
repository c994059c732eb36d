"""sequence_sum_mean divides the total by the number of response tokens (a token mean) instead of by B."""
import numpy as np


def masked_token_ppo_objective(
    new_log_probs, old_log_probs, advantages, mask, clip_epsilon=0.2, reduction="token_mean"
):
    if reduction not in REDUCTIONS:
        raise ValueError(f"unknown reduction {reduction!r}")
    _, _, _, pessimistic = masked_token_ppo_terms(new_log_probs, old_log_probs, advantages, mask, clip_epsilon)
    keep = np.asarray(mask, dtype=float) != 0
    P = np.where(keep, pessimistic, 0.0)
    row_sums = P.sum(axis=1)
    row_counts = keep.sum(axis=1)
    if not keep.any():
        return 0.0
    if reduction == "token_mean":
        return float(P.sum() / row_counts.sum())
    if reduction == "sequence_mean":
        return float(np.mean(np.where(row_counts > 0, row_sums / np.maximum(row_counts, 1), 0.0)))
    return float(row_sums.sum() / row_counts.sum())
