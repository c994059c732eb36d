"""Never validates its input, so an empty group returns an empty array and a 2-D array is centred on its overall mean."""
import numpy as np


def group_mean_advantages(rewards):
    r = np.asarray(rewards, dtype=float)
    if r.size == 0:
        return r.copy()
    return r - r.mean()
