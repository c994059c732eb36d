"""Never checks for a zero or tiny std, so a constant group divides 0 by 0 and returns nan."""
import numpy as np


def group_zscore_advantages(rewards, eps=1e-8):
    r = np.asarray(rewards, dtype=float)
    if r.ndim != 1 or r.size == 0:
        raise ValueError("need a non-empty vector of rewards")
    if eps < 0:
        raise ValueError("eps must be non-negative")
    with np.errstate(divide="ignore", invalid="ignore"):
        return (r - r.mean()) / r.std()
