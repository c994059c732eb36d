"""Concludes that a fixed simulator does not affect the gradient estimate at all.

expect: through the data
"""
reinforce_transition_cases = (True, False, True, False, True)
