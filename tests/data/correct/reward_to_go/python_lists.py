"""A backward recursion over a plain Python list, converted to an array at the end."""
import numpy as np


def reward_to_go(rewards, gamma):
    r = np.asarray(rewards, dtype=float)
    if len(r.shape) != 1:
        raise ValueError("rewards must be one-dimensional")
    if not 0 <= gamma <= 1:
        raise ValueError("gamma must lie in [0, 1]")
    returns = []
    following = 0.0
    for reward in reversed(r.tolist()):
        following = reward + gamma * following
        returns.append(following)
    return np.array(returns[::-1], dtype=float)
