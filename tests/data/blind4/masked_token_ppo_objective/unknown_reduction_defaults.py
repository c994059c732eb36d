"""Falls back to sequence_sum_mean for an unknown reduction name instead of raising ValueError."""
import numpy as np


def masked_token_ppo_objective(
    new_log_probs, old_log_probs, advantages, mask, clip_epsilon=0.2, reduction="token_mean"
):
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
    return float(row_sums.mean())
