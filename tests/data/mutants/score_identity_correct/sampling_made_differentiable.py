"""Believes the identity differentiates through the discrete draw (picks statement 1 too).

expect: the draw of X stays discrete
"""
score_identity_correct = {1, 2, 4}
