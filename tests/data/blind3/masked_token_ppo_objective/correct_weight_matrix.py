"""correct: builds one weight per token for the chosen reduction and returns the weighted sum of the pessimistic terms."""
import numpy as np


def masked_token_ppo_objective(
    new_log_probs, old_log_probs, advantages, mask, clip_epsilon=0.2, reduction="token_mean"
):
    if reduction not in ("token_mean", "sequence_mean", "sequence_sum_mean"):
        raise ValueError(f"reduction must be one of token_mean, sequence_mean, sequence_sum_mean; got {reduction!r}")
    terms = masked_token_ppo_terms(new_log_probs, old_log_probs, advantages, mask, clip_epsilon)
    pessimistic = terms[3]
    on = (np.asarray(mask) != 0).astype(np.float64)
    rows = on.shape[0]
    if reduction == "token_mean":
        weights = on / max(on.sum(), 1.0)
    elif reduction == "sequence_mean":
        weights = on / np.maximum(on.sum(axis=1, keepdims=True), 1.0) / rows
    else:
        weights = on / rows
    if not on.any():
        return 0.0
    return float(np.sum(np.where(on > 0, pessimistic, 0.0) * weights))
