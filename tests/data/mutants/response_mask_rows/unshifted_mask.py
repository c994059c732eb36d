"""Aligns the mask with input_ids instead of the shifted labels.

expect: off by one position
"""
response_mask_rows = ((0, 0, 0, 1, 1, 1), (0, 0, 1, 1, 0, 0))
