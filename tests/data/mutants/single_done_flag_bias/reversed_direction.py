"""Gets the direction of the single-done-flag bias backwards.

expect: removes value
"""
single_done_flag_bias = ("higher", "lower")
