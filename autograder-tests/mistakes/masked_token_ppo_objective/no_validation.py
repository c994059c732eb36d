"""Computes everything itself without any check (shapes broadcast, any clip_epsilon), needing arrays.

expect: must raise ValueError
diagnosis: your function checks nothing: inputs masked_token_ppo_terms rejects (shapes that differ, clip_epsilon
    outside (0, 1)) must raise ValueError here too
"""

import numpy as np


def masked_token_ppo_objective(
    new_log_probs, old_log_probs, advantages, mask, clip_epsilon=0.2, reduction="token_mean"
):
    active = mask != 0
    adv = advantages[:, None] if advantages.ndim == 1 else advantages
    ratio = np.exp(np.where(active, new_log_probs - old_log_probs, 0.0))
    pessimistic = np.where(
        active, np.minimum(ratio * adv, np.clip(ratio, 1 - clip_epsilon, 1 + clip_epsilon) * adv), 0.0
    )
    if not np.any(active):
        return 0.0
    if reduction == "token_mean":
        return float(np.sum(pessimistic) / np.sum(active))
    row_sums = np.sum(pessimistic, axis=1)
    if reduction == "sequence_sum_mean":
        return float(np.mean(row_sums))
    row_counts = np.sum(active, axis=1)
    return float(np.mean(np.divide(row_sums, row_counts, out=np.zeros_like(row_sums), where=row_counts > 0)))
