"""Divides by the token counts without guarding against zero, so an all-zero mask gives nan instead of 0.0."""
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
    with np.errstate(invalid="ignore", divide="ignore"):
        if reduction == "token_mean":
            return float(p.sum() / on.sum())
        if reduction == "sequence_mean":
            per_row = p.sum(axis=1) / on.sum(axis=1)
            return float(np.mean(np.where(on.sum(axis=1) > 0, per_row, 0.0)) if on.any() else np.nan)
    return float(p.sum(axis=1).mean())
