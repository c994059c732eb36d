"""The score matrix onehot - pi as identity minus probabilities, contracted with einsum."""
import numpy as np


def optimal_constant_baseline(logits, action_values):
    z = np.asarray(logits, dtype=float)
    q = np.asarray(action_values, dtype=float)
    if z.ndim != 1 or z.shape != q.shape or len(z) < 2:
        raise ValueError("logits and action_values must be aligned vectors of at least two actions")
    p = np.exp(z - z.max())
    p = p / p.sum()
    scores = np.eye(len(p)) - p[None, :]
    squared = np.einsum("ak,ak->a", scores, scores)
    return float(np.einsum("a,a,a->", p, squared, q) / np.einsum("a,a->", p, squared))
