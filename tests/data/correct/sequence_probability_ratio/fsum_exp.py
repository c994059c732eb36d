"""math.exp of each row's exactly summed (math.fsum) response log-ratios."""
import math

import numpy as np


def sequence_probability_ratio(new_log_probs, old_log_probs, mask):
    new = np.array(new_log_probs, dtype=float)
    old = np.array(old_log_probs, dtype=float)
    m = np.array(mask, dtype=float)
    if len(new.shape) != 2 or new.shape != old.shape or new.shape != m.shape:
        raise ValueError("new_log_probs, old_log_probs and mask must share one [B, L] shape")
    return np.array([math.exp(math.fsum(n - o for n, o, keep in zip(nr, orow, mr) if keep != 0))
                     for nr, orow, mr in zip(new, old, m)])
