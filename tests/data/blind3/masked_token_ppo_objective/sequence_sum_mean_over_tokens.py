"""Divides the sequence_sum_mean total by the number of response tokens instead of by B, making it the token mean."""
import numpy as np


def masked_token_ppo_objective(
    new_log_probs, old_log_probs, advantages, mask, clip_epsilon=0.2, reduction="token_mean"
):
    if reduction not in REDUCTIONS:
        raise ValueError(f"unknown reduction {reduction!r}")
    _, _, _, p = masked_token_ppo_terms(new_log_probs, old_log_probs, advantages, mask, clip_epsilon)
    on = np.asarray(mask, dtype=float) != 0
    p = np.where(on, p, 0.0)
    B = p.shape[0]
    n = on.sum()
    if n == 0:
        return 0.0
    if reduction == "token_mean":
        return float(p.sum() / n)
    if reduction == "sequence_mean":
        return float(np.mean(p.sum(axis=1) / np.maximum(on.sum(axis=1), 1)))
    return float(p.sum(axis=1).sum() / n)
