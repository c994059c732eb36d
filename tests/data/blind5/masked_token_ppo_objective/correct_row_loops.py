"""correct: computes each reduction with explicit per-row sums and counts on top of masked_token_ppo_terms."""
import numpy as np


def masked_token_ppo_objective(new_log_probs, old_log_probs, advantages, mask,
                               clip_epsilon=0.2, reduction="token_mean"):
    if reduction not in REDUCTIONS:
        raise ValueError(f"reduction must be one of {REDUCTIONS}, got {reduction!r}")
    _, _, _, pess = masked_token_ppo_terms(new_log_probs, old_log_probs, advantages, mask, clip_epsilon)
    m = np.asarray(mask, dtype=float)
    row_sums = [float(np.sum(pess[b])) for b in range(pess.shape[0])]
    row_counts = [float(np.sum(m[b])) for b in range(m.shape[0])]
    total_tokens = sum(row_counts)
    if total_tokens <= 0:
        return 0.0   # no response token: nothing to optimise
    if reduction == "token_mean":
        return sum(row_sums) / total_tokens
    if reduction == "sequence_mean":
        per_seq = [s / c if c > 0 else 0.0 for s, c in zip(row_sums, row_counts)]
        return sum(per_seq) / len(per_seq)
    return sum(row_sums) / len(row_sums)   # sequence_sum_mean
