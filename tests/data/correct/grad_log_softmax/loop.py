"""Component by component: 1 - pi(a) for the sampled action, -pi(k) for the others."""
import math
import operator

import numpy as np


def grad_log_softmax(logits, action):
    z = np.asarray(logits, dtype=float)
    if z.ndim != 1 or len(z) < 1:
        raise ValueError("logits must be a non-empty vector")
    if isinstance(action, (bool, np.bool_)):
        raise ValueError("action must be an integer")
    try:
        a = operator.index(action)
    except TypeError:
        raise ValueError("action must be an integer") from None
    if not 0 <= a < len(z):
        raise ValueError("action out of range")
    top = max(z)
    exps = [math.exp(x - top) for x in z]
    total = math.fsum(exps)
    return np.array([(1.0 if k == a else 0.0) - e / total for k, e in enumerate(exps)])
