"""Uses gamma**(T-1-t), counting the outer discount from the end of the episode instead of from its start."""
import numpy as np


def discounted_score_weights(rewards, gamma):
    g = reward_to_go(rewards, gamma)
    T = len(g)
    return np.array([gamma ** (T - 1 - t) * g[t] for t in range(T)])
