"""correct: walks the records with zip over reversed Python lists, collects advantages in a list and reverses it"""
import numpy as np


def gae_advantages(rewards, values, next_values, terminated, trace_cuts, gamma, gae_lambda):
    arrays = [np.asarray(x, dtype=float) for x in (rewards, values, next_values)]
    flags = [np.asarray(x, dtype=bool) for x in (terminated, trace_cuts)]
    shapes = {a.shape for a in arrays + flags}
    if len(shapes) != 1 or arrays[0].ndim != 1:
        raise ValueError("inputs must be aligned one-dimensional arrays")
    if not 0.0 <= gamma <= 1.0 or not 0.0 <= gae_lambda <= 1.0:
        raise ValueError("gamma and gae_lambda must lie in [0, 1]")
    records = zip(*(a.tolist() for a in arrays + flags))
    out = []
    following = 0.0
    for reward, value, next_value, done, cut in reversed(list(records)):
        bootstrap = 0.0 if done else gamma * next_value
        delta = reward + bootstrap - value
        following = delta + (0.0 if cut else gamma * gae_lambda * following)
        out.append(following)
    out.reverse()
    return np.array(out, dtype=float)
