"""Averages sequence_mean over the rows that have response tokens only, instead of over all B rows."""
import numpy as np


def masked_token_ppo_objective(
    new_log_probs, old_log_probs, advantages, mask, clip_epsilon=0.2, reduction="token_mean"
):
    if reduction not in REDUCTIONS:
        raise ValueError(f"unknown reduction {reduction!r}")
    _, _, _, p = masked_token_ppo_terms(new_log_probs, old_log_probs, advantages, mask, clip_epsilon)
    on = np.asarray(mask, dtype=float) != 0
    p = np.where(on, p, 0.0)
    B = p.shape[0]
    n = on.sum()
    if n == 0:
        return 0.0
    if reduction == "token_mean":
        return float(p.sum() / n)
    if reduction == "sequence_mean":
        counts = on.sum(axis=1)
        rows = counts > 0
        return float(np.mean(p.sum(axis=1)[rows] / counts[rows]))
    return float(p.sum(axis=1).mean())
