"""Counts the outer discount's exponent from the end of the episode: gamma^(T - 1 - t) instead of gamma^t.

expect: counted from the end of the episode
diagnosis: your outer discount is gamma^(T - 1 - t), its exponent counted from the end of the episode: step t of the
    literal objective is discounted by gamma^t, counted from its start (the first weight is G_0 itself)
"""

import numpy as np


def discounted_score_weights(rewards, gamma):
    returns = reward_to_go(rewards, gamma)  # noqa: F821 (the solutions module above)
    return gamma ** np.arange(len(returns), dtype=float)[::-1] * returns
