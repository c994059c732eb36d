"""treats an unknown reduction as sequence_sum_mean instead of raising ValueError"""
import numpy as np


def masked_token_ppo_objective(
    new_log_probs, old_log_probs, advantages, mask, clip_epsilon=0.2, reduction="token_mean"
):
    # masked_token_ppo_terms and REDUCTIONS come from the exercise module.
    _, _, _, P = masked_token_ppo_terms(new_log_probs, old_log_probs, advantages, mask, clip_epsilon)
    keep = np.asarray(mask, dtype=float) != 0
    if not keep.any():
        return 0.0
    if reduction == "token_mean":
        return float(P.sum() / keep.sum())
    if reduction == "sequence_mean":
        counts = keep.sum(axis=1)
        rows = np.where(counts > 0, P.sum(axis=1) / np.maximum(counts, 1), 0.0)
        return float(rows.mean())
    return float(P.sum(axis=1).mean())
