"""Divides by the standard deviation without a threshold, so a constant group gives nan.

expect: gives nan
"""
import numpy as np


def group_zscore_advantages(rewards, eps=1e-8):
    if eps < 0:
        raise ValueError("eps must be non-negative")
    centred = group_mean_advantages(rewards)  # noqa: F821 (the solutions module above)
    return centred / np.std(centred)
