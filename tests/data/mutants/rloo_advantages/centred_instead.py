"""Subtracts the mean of the whole group instead of the others' mean.

expect: the others average
"""
rloo_advantages = (0.0, -2.0, -1.0, 3.0)
