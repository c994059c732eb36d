"""Discounts the rewards from the start (gamma^k r_k), then applies reward_to_go with gamma and gamma^t again.

expect: discounted twice
diagnosis: your weights have the rewards discounted twice: gamma^t * G_t already discounts each reward once, by gamma
    to the power of its own time step
"""

import numpy as np


def discounted_score_weights(rewards, gamma):
    r = np.asarray(rewards, dtype=float)
    discounts = gamma ** np.arange(len(r), dtype=float)
    return discounts * reward_to_go(discounts * r, gamma)
