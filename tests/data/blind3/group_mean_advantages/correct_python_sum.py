"""correct: centres on the Python sum of the rewards divided by G, built element by element as a new array."""
import numpy as np


def group_mean_advantages(rewards):
    r = np.array(rewards, dtype=np.float64)
    if r.ndim != 1 or len(r) == 0:
        raise ValueError(f"rewards must be a non-empty vector, got shape {r.shape}")
    values = r.tolist()
    centre = sum(values) / len(values)
    return np.array([x - centre for x in values], dtype=np.float64)
