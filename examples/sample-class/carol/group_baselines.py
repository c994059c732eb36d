import numpy as np


def group_zscore_advantages(rewards, eps=1e-8):
    # Carol uses the sample standard deviation and adds eps to it.
    r = np.asarray(rewards, dtype=float)
    if r.ndim != 1 or len(r) == 0:
        raise ValueError("rewards must be a non-empty vector")
    centred = r - r.mean()
    std = r.std(ddof=1) if len(r) > 1 else 0.0
    return centred / (std + eps)
