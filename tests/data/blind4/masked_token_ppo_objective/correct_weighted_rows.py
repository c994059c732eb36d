"""correct: every reduction is a weighted sum of the row sums, with the per-row weight chosen by the reduction."""
import numpy as np


def masked_token_ppo_objective(
    new_log_probs, old_log_probs, advantages, mask, clip_epsilon=0.2, reduction="token_mean"
):
    if reduction not in REDUCTIONS:
        raise ValueError(f"unknown reduction {reduction!r}")
    _, _, _, pessimistic = masked_token_ppo_terms(new_log_probs, old_log_probs, advantages, mask, clip_epsilon)
    keep = np.asarray(mask, dtype=float) != 0
    row_sums = np.where(keep, pessimistic, 0.0).sum(axis=1)
    counts = keep.sum(axis=1).astype(float)
    B = row_sums.size
    if reduction == "token_mean":
        total = counts.sum()
        weights = np.full(B, 1.0 / total) if total > 0 else np.zeros(B)
    elif reduction == "sequence_mean":
        weights = np.divide(1.0, counts * B, out=np.zeros(B), where=counts > 0)
    else:
        weights = np.full(B, 1.0 / B)
    return float(np.dot(weights, row_sums))
