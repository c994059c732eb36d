"""correct: takes the action's row of the identity matrix and subtracts a softmax computed via log-sum-exp."""
import numpy as np


def grad_log_softmax(logits, action):
    z = np.array(logits, dtype=np.float64)
    if z.ndim != 1 or len(z) == 0:
        raise ValueError("logits must be a non-empty vector")
    if isinstance(action, (bool, np.bool_)) or not isinstance(action, (int, np.integer)):
        raise ValueError(f"action must be an integer, got {action!r}")
    k = len(z)
    if not 0 <= int(action) < k:
        raise ValueError(f"action {action} outside [0, {k})")
    m = np.max(z)
    probs = np.exp(z - m - np.log(np.sum(np.exp(z - m))))
    return np.eye(k)[int(action)] - probs
