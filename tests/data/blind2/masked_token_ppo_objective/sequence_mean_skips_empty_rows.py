"""sequence_mean averages only over rows that have response tokens, instead of counting empty rows as 0 over all B rows"""

import numpy as np


def masked_token_ppo_objective(
    new_log_probs, old_log_probs, advantages, mask, clip_epsilon=0.2, reduction="token_mean"
):
    if reduction not in ("token_mean", "sequence_mean", "sequence_sum_mean"):
        raise ValueError(f"unknown reduction {reduction!r}")
    _, _, _, p = masked_token_ppo_terms(new_log_probs, old_log_probs, advantages, mask, clip_epsilon)
    on = np.asarray(mask, dtype=float) != 0

    if not on.any():
        return 0.0

    if reduction == "token_mean":
        return float(p.sum() / on.sum())

    if reduction == "sequence_mean":
        counts = on.sum(axis=1)
        rows = p.sum(axis=1)[counts > 0] / counts[counts > 0]
        return float(rows.mean())

    return float(p.sum(axis=1).mean())
