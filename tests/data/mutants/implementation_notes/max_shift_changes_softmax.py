"""Believes subtracting the maximum logit changes the probabilities.

expect: can no longer overflow
"""
implementation_notes = (True, True, True, False)
