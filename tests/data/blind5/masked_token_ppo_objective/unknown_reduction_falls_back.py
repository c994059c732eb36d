"""Falls back to token_mean for an unknown reduction name instead of raising ValueError."""
import numpy as np


def masked_token_ppo_objective(new_log_probs, old_log_probs, advantages, mask,
                               clip_epsilon=0.2, reduction="token_mean"):
    _, _, _, pessimistic = masked_token_ppo_terms(new_log_probs, old_log_probs, advantages, mask, clip_epsilon)
    m = np.asarray(mask, dtype=float)
    if reduction == "sequence_mean":
        return float(np.mean(pessimistic.sum(axis=1) / np.maximum(m.sum(axis=1), 1.0)))
    if reduction == "sequence_sum_mean":
        return float(np.mean(pessimistic.sum(axis=1)))
    return float(pessimistic.sum() / m.sum())
