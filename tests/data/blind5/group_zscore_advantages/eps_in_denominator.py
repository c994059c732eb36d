"""Divides by std + eps instead of returning zeros when the std is below eps and dividing by the std otherwise."""
import numpy as np


def group_zscore_advantages(rewards, eps=1e-8):
    centred = group_mean_advantages(rewards)
    return centred / (np.std(centred) + eps)
