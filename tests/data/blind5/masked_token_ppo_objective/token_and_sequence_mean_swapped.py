"""Swaps token_mean and sequence_mean: token_mean averages per-sequence means and sequence_mean divides by the total token count."""
import numpy as np


def masked_token_ppo_objective(new_log_probs, old_log_probs, advantages, mask,
                               clip_epsilon=0.2, reduction="token_mean"):
    if reduction not in REDUCTIONS:
        raise ValueError("unknown reduction")
    _, _, _, pessimistic = masked_token_ppo_terms(new_log_probs, old_log_probs, advantages, mask, clip_epsilon)
    m = np.asarray(mask, dtype=float)
    if reduction == "sequence_mean":
        return float(pessimistic.sum() / m.sum())
    if reduction == "token_mean":
        return float(np.mean(pessimistic.sum(axis=1) / np.maximum(m.sum(axis=1), 1.0)))
    return float(np.mean(pessimistic.sum(axis=1)))
