"""Does not check that action_values has one entry per logit, so a single value broadcasts silently instead of raising ValueError."""
import numpy as np


def optimal_constant_baseline(logits, action_values):
    p = stable_softmax(logits)
    q = np.asarray(action_values, dtype=float)
    sq_norm = (1.0 - p) ** 2 + (np.sum(p ** 2) - p ** 2)
    w = p * sq_norm
    return float(np.sum(w * q) / np.sum(w))
