"""sequence_sum_mean divides the total of the per-sequence sums by the number of response tokens instead of the number of sequences."""
import numpy as np


def masked_token_ppo_objective(new_log_probs, old_log_probs, advantages, mask,
                               clip_epsilon=0.2, reduction="token_mean"):
    if reduction not in REDUCTIONS:
        raise ValueError("unknown reduction")
    _, _, _, pessimistic = masked_token_ppo_terms(new_log_probs, old_log_probs, advantages, mask, clip_epsilon)
    m = np.asarray(mask, dtype=float)
    seq_sums = pessimistic.sum(axis=1)
    seq_lens = m.sum(axis=1)
    if reduction == "token_mean":
        return float(seq_sums.sum() / seq_lens.sum())
    if reduction == "sequence_mean":
        return float(np.mean(seq_sums / np.maximum(seq_lens, 1.0)))
    return float(seq_sums.sum() / seq_lens.sum())
