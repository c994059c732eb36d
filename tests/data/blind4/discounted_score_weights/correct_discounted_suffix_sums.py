"""correct: gamma**t * G_t equals the suffix sum of the start-discounted rewards gamma**k * r_k."""
import numpy as np


def discounted_score_weights(rewards, gamma):
    r = np.asarray(rewards, dtype=float)
    if r.ndim != 1:
        raise ValueError("rewards must be one-dimensional")
    if not 0.0 <= gamma <= 1.0:
        raise ValueError("gamma must lie in [0, 1]")
    discounted = r * np.power(gamma, np.arange(r.size, dtype=float))
    out = np.empty_like(discounted)
    running = 0.0
    for t in range(r.size - 1, -1, -1):
        running += discounted[t]
        out[t] = running
    return out
