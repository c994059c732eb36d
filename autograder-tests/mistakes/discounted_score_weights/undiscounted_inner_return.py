"""Multiplies gamma^t by the undiscounted sum of the remaining rewards instead of the discounted return G_t.

expect: undiscounted sum of the rewards
diagnosis: your weights are gamma^t times the undiscounted sum of the rewards from step t on: the return inside must
    be discounted too, G_t = r_t + gamma * r_{t+1} + gamma^2 * r_{t+2} + ...
"""

import numpy as np


def discounted_score_weights(rewards, gamma):
    r = np.asarray(rewards, dtype=float)
    if r.ndim != 1 or not 0 <= gamma <= 1:
        raise ValueError("rewards must be one-dimensional and gamma in [0, 1]")
    remaining = np.cumsum(r[::-1])[::-1]
    return gamma ** np.arange(len(r), dtype=float) * remaining
