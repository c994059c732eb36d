"""Returns softmax minus the one-hot vector: the score with its sign flipped."""
import numpy as np


def grad_log_softmax(logits, action):
    z = np.asarray(logits, dtype=float)
    if z.ndim != 1 or z.size == 0:
        raise ValueError("logits must be a non-empty vector")
    if not isinstance(action, (int, np.integer)) or isinstance(action, bool) or not 0 <= action < z.size:
        raise ValueError("action must be an integer in [0, K)")
    e = np.exp(z - z.max())
    p = e / e.sum()
    onehot = np.zeros_like(p)
    onehot[action] = 1.0
    return p - onehot
