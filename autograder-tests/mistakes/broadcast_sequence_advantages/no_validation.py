"""Correct product but no shape checks (a single advantage broadcasts over the batch), and it needs arrays.

expect: must raise ValueError
diagnosis: your function checks no shapes (a single advantage broadcasts over a whole batch) and needs arrays:
    misshaped inputs must raise ValueError, and lists must work
"""

import numpy as np


def broadcast_sequence_advantages(sequence_advantages, token_mask):
    return sequence_advantages[:, None] * token_mask
