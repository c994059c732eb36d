"""token_mean divides the sum of the terms by all B * L positions instead of the number of response tokens.

expect: token_mean divides by every position
diagnosis: your token_mean divides by every position of the batch, prompt and padding included: it is the mean over
    the response tokens only, so divide by their number
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
    row_sums = pessimistic.sum(axis=1)
    if reduction == "token_mean":
        return float(row_sums.sum() / pessimistic.size)
    if reduction == "sequence_sum_mean":
        return float(row_sums.mean())
    lengths = response.sum(axis=1)
    return float(np.mean(np.where(lengths > 0, row_sums / np.maximum(lengths, 1), 0.0)))
