"""Returns the state value V = sum pi(a) Q(a) instead of b*.

expect: returns the state value
diagnosis: your function returns the state value V = sum_a pi(a) Q(a): b* also weights each action by |g(a)|^2
"""

import numpy as np


def optimal_constant_baseline(logits, action_values):
    z = np.asarray(logits, dtype=float)
    q = np.asarray(action_values, dtype=float)
    if z.ndim != 1 or q.shape != z.shape or z.size < 2:
        raise ValueError("misaligned")
    p = stable_softmax(z)
    return float(np.sum(p * q))
