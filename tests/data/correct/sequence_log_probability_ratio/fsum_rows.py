"""Row by row, the unmasked token log-ratios summed with math.fsum."""
import math

import numpy as np


def sequence_log_probability_ratio(new_log_probs, old_log_probs, mask):
    new = np.asarray(new_log_probs, dtype=float)
    old = np.asarray(old_log_probs, dtype=float)
    m = np.asarray(mask, dtype=float)
    if new.ndim != 2 or old.shape != new.shape or m.shape != new.shape:
        raise ValueError("new_log_probs, old_log_probs and mask must share one [B, L] shape")
    return np.array([math.fsum(n - o for n, o, keep in zip(nr, orow, mr) if keep != 0)
                     for nr, orow, mr in zip(new, old, m)], dtype=float)
