"""Thinks centred advantages of a constant group are not zero.

expect: no ranking signal
"""
group_baseline_statements = (True, True, True, True)
