"""correct: takes the action's row of an identity matrix and subtracts the softmax, checking the range before computing anything."""
import numpy as np


def grad_log_softmax(logits, action):
    z = np.asarray(logits, dtype=float)
    k = z.shape[0] if z.ndim == 1 else -1
    if not (0 <= int(action) < k):
        raise ValueError(f"action {action} is not in [0, {k})")
    probs = stable_softmax(z)
    one_hot = np.eye(k)[int(action)]
    return one_hot - probs
