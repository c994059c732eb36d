"""Returns the negated objective (a loss to minimise) instead of the objective to maximise."""
import numpy as np


def masked_token_ppo_objective(new_log_probs, old_log_probs, advantages, mask,
                               clip_epsilon=0.2, reduction="token_mean"):
    if reduction not in REDUCTIONS:
        raise ValueError("unknown reduction")
    _, _, _, pessimistic = masked_token_ppo_terms(new_log_probs, old_log_probs, advantages, mask, clip_epsilon)
    m = np.asarray(mask, dtype=float)
    if reduction == "token_mean":
        value = pessimistic.sum() / m.sum()
    elif reduction == "sequence_mean":
        value = np.mean(pessimistic.sum(axis=1) / np.maximum(m.sum(axis=1), 1.0))
    else:
        value = np.mean(pessimistic.sum(axis=1))
    return float(-value)   # loss for the optimiser
