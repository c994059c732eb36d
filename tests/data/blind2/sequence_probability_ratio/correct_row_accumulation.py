"""correct: accumulates each row's response log-ratios in a Python loop and exponentiates once per row"""

import numpy as np


def sequence_probability_ratio(new_log_probs, old_log_probs, mask):
    new = np.array(new_log_probs, dtype=np.float64)
    old = np.array(old_log_probs, dtype=np.float64)
    keep = np.array(mask, dtype=np.float64) != 0
    if new.ndim != 2 or new.shape != old.shape or new.shape != keep.shape:
        raise ValueError("new_log_probs, old_log_probs and mask must share one 2-D shape")
    out = np.empty(new.shape[0], dtype=np.float64)
    for b in range(new.shape[0]):
        total = 0.0
        for n, o, k in zip(new[b], old[b], keep[b]):
            if k:
                total += float(n) - float(o)
        out[b] = np.exp(total)
    return out
