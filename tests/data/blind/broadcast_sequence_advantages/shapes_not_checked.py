"""does not check the shapes, so a mismatched batch or non-[B] advantages are broadcast by numpy instead of raising ValueError"""
import numpy as np


def broadcast_sequence_advantages(sequence_advantages, token_mask):
    a = np.asarray(sequence_advantages, dtype=float)
    m = np.asarray(token_mask, dtype=float)
    return a[:, None] * m
