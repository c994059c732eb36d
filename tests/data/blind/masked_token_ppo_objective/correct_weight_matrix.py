"""correct: builds one weight matrix per reduction (mask / count, mask / (B * row count), mask / B) and returns the weighted sum"""
import numpy as np


def masked_token_ppo_objective(
    new_log_probs, old_log_probs, advantages, mask, clip_epsilon=0.2, reduction="token_mean"
):
    # masked_token_ppo_terms comes from the exercise module.
    terms = masked_token_ppo_terms(new_log_probs, old_log_probs, advantages, mask, clip_epsilon)[3]
    m = (np.asarray(mask, dtype=float) != 0).astype(float)
    rows = m.shape[0]
    if reduction == "token_mean":
        total = m.sum()
        weights = m / total if total else m
    elif reduction == "sequence_mean":
        per_row = m.sum(axis=1, keepdims=True)
        weights = np.divide(m, per_row * rows, out=np.zeros_like(m), where=per_row > 0)
    elif reduction == "sequence_sum_mean":
        weights = m / rows if rows else m
    else:
        raise ValueError("reduction must be token_mean, sequence_mean or sequence_sum_mean")
    return float(np.sum(weights * terms))
