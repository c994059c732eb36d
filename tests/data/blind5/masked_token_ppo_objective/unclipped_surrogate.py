"""Reduces the unclipped terms ratio * advantage instead of the pessimistic minimum."""
import numpy as np


def masked_token_ppo_objective(new_log_probs, old_log_probs, advantages, mask,
                               clip_epsilon=0.2, reduction="token_mean"):
    if reduction not in REDUCTIONS:
        raise ValueError("unknown reduction")
    _, unclipped, _, _ = masked_token_ppo_terms(new_log_probs, old_log_probs, advantages, mask, clip_epsilon)
    m = np.asarray(mask, dtype=float)
    terms = unclipped * m
    if reduction == "token_mean":
        return float(terms.sum() / m.sum())
    if reduction == "sequence_mean":
        return float(np.mean(terms.sum(axis=1) / np.maximum(m.sum(axis=1), 1.0)))
    return float(np.mean(terms.sum(axis=1)))
