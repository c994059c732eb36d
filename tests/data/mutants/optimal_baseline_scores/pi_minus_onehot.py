"""Writes the score with the wrong sign, pi - onehot(a), and the norms without squaring.

expect: onehot(a) - pi
"""
optimal_baseline_scores = ((-0.2, 0.2), (0.8, -0.8), (0.2828, 1.1314))
