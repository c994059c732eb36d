"""correct: accumulates Python floats over reversed(rewards) into a list and reverses it at the end"""
import numpy as np


def reward_to_go(rewards, gamma):
    r = np.asarray(rewards, dtype=float)
    if r.ndim != 1 or not (0.0 <= gamma <= 1.0):
        raise ValueError("rewards must be one-dimensional and gamma in [0, 1]")
    tail = 0.0
    backwards = []
    for reward in reversed(r.tolist()):
        tail = reward + gamma * tail
        backwards.append(tail)
    return np.array(backwards[::-1], dtype=float)
