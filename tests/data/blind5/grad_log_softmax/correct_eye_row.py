"""correct: takes the action's row of an identity matrix and subtracts the softmax, checking the range before computing anything."""
import numpy as np


def grad_log_softmax(logits, action):
    z = np.asarray(logits, dtype=float)
    k = z.shape[0] if z.ndim == 1 else -1
    is_integer = isinstance(action, (int, np.integer)) and not isinstance(action, (bool, np.bool_))
    if not is_integer or not (0 <= action < k):
        raise ValueError(f"action {action!r} is not an integer in [0, {k})")
    probs = stable_softmax(z)
    one_hot = np.eye(k)[action]
    return one_hot - probs
