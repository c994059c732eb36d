"""Has no no-signal case: a constant group divides zero by zero and returns nan."""
import numpy as np


def group_zscore_advantages(rewards, eps=1e-8):
    r = np.asarray(rewards, dtype=float)
    if r.ndim != 1 or r.size == 0:
        raise ValueError("rewards must be a non-empty vector")
    if eps < 0:
        raise ValueError("eps must be non-negative")
    with np.errstate(invalid="ignore", divide="ignore"):
        return (r - r.mean()) / r.std()
