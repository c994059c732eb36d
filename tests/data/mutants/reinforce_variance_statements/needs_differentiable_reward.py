"""Believes REINFORCE needs a differentiable reward, and that a baseline only shifts the mean.

expect: never differentiated
"""
reinforce_variance_statements = (False, False, False, True)
