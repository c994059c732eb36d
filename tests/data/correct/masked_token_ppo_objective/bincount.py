"""Its own masked terms (np.where), row sums and counts with np.bincount over the row index of each token."""
import numpy as np

_REDUCTIONS = {"token_mean", "sequence_mean", "sequence_sum_mean"}


def masked_token_ppo_objective(
    new_log_probs, old_log_probs, advantages, mask, clip_epsilon=0.2, reduction="token_mean"
):
    if reduction not in _REDUCTIONS:
        raise ValueError("unknown reduction")
    new = np.asarray(new_log_probs, dtype=float)
    old = np.asarray(old_log_probs, dtype=float)
    m = np.asarray(mask, dtype=float)
    adv = np.asarray(advantages, dtype=float)
    if new.ndim != 2 or new.shape != old.shape or new.shape != m.shape:
        raise ValueError("shapes")
    if adv.shape == (new.shape[0],):
        adv = adv[:, None] + np.zeros(new.shape)
    elif adv.shape != new.shape:
        raise ValueError("advantages must be [B] or [B, L]")
    if not 0 < clip_epsilon < 1:
        raise ValueError("clip_epsilon must lie in (0, 1)")
    rows, cols = np.nonzero(m != 0)
    if rows.size == 0:
        return 0.0
    ratio = np.exp(new[rows, cols] - old[rows, cols])
    a = adv[rows, cols]
    terms = np.minimum(ratio * a, np.clip(ratio, 1 - clip_epsilon, 1 + clip_epsilon) * a)
    if reduction == "token_mean":
        return float(terms.mean())
    sums = np.bincount(rows, weights=terms, minlength=new.shape[0])
    if reduction == "sequence_sum_mean":
        return float(sums.mean())
    counts = np.bincount(rows, minlength=new.shape[0])
    return float(np.mean(np.where(counts > 0, sums / np.maximum(counts, 1), 0.0)))
