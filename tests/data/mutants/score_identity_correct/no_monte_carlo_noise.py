"""Believes one sample gives the exact gradient and misses the black-box reward.

expect: still a Monte Carlo average
"""
score_identity_correct = {2, 3}
