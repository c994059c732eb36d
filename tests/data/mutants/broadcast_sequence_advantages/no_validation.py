"""Correct product but no shape checks (a single advantage broadcasts over the batch), and it needs arrays.

expect: must raise ValueError
"""
import numpy as np


def broadcast_sequence_advantages(sequence_advantages, token_mask):
    return sequence_advantages[:, None] * token_mask
