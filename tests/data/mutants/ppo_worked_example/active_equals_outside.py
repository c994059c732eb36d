"""Counts every ratio outside the interval as an active clip.

expect: the unclipped term is already the smaller one
"""
ppo_worked_example = (1.0, 1.0, -0.05, 0.143841)
