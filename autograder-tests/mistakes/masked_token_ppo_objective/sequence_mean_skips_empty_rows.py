"""sequence_mean averages the per-response means over the rows with response tokens only, not over all B rows.

expect: rows without response tokens are dropped from the mean
diagnosis: your sequence_mean leaves out responses without tokens: rows without response tokens are dropped from the
    mean, but such a row contributes 0 and still counts among the B rows
"""

import numpy as np


def masked_token_ppo_objective(
    new_log_probs, old_log_probs, advantages, mask, clip_epsilon=0.2, reduction="token_mean"
):
    if reduction not in REDUCTIONS:  # noqa: F821 (the solutions module above)
        raise ValueError(f"unknown reduction {reduction!r}")
    *_, pessimistic = masked_token_ppo_terms(new_log_probs, old_log_probs, advantages, mask, clip_epsilon)  # noqa: F821
    response = np.asarray(mask, dtype=float) != 0
    if not response.any():
        return 0.0
    if reduction == "token_mean":
        return float(pessimistic.sum() / response.sum())
    if reduction == "sequence_sum_mean":
        return float(pessimistic.sum(axis=1).mean())
    lengths = response.sum(axis=1)
    nonempty = lengths > 0
    return float(np.mean(pessimistic.sum(axis=1)[nonempty] / lengths[nonempty]))
