"""sequence_mean averages each row over all L columns instead of over that row's response tokens."""
import numpy as np


def masked_token_ppo_objective(new_log_probs, old_log_probs, advantages, mask,
                               clip_epsilon=0.2, reduction="token_mean"):
    if reduction not in REDUCTIONS:
        raise ValueError("unknown reduction")
    _, _, _, pessimistic = masked_token_ppo_terms(new_log_probs, old_log_probs, advantages, mask, clip_epsilon)
    m = np.asarray(mask, dtype=float)
    if reduction == "token_mean":
        return float(pessimistic.sum() / m.sum())
    if reduction == "sequence_mean":
        return float(np.mean(pessimistic.mean(axis=1)))
    return float(np.mean(pessimistic.sum(axis=1)))
