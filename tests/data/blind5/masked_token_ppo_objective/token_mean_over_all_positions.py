"""token_mean divides the summed terms by all B*L positions (np.mean) instead of by the number of response tokens."""
import numpy as np


def masked_token_ppo_objective(new_log_probs, old_log_probs, advantages, mask,
                               clip_epsilon=0.2, reduction="token_mean"):
    if reduction not in REDUCTIONS:
        raise ValueError("unknown reduction")
    _, _, _, pessimistic = masked_token_ppo_terms(new_log_probs, old_log_probs, advantages, mask, clip_epsilon)
    m = np.asarray(mask, dtype=float)
    if reduction == "token_mean":
        return float(np.mean(pessimistic))
    per_row = pessimistic.sum(axis=1)
    if reduction == "sequence_mean":
        return float(np.mean(per_row / np.maximum(m.sum(axis=1), 1.0)))
    return float(np.mean(per_row))
