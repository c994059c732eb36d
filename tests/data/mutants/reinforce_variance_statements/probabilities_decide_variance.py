"""Believes the variance depends on the action probabilities only, not on the parameterisation.

expect: depends on the parameterisation
"""
reinforce_variance_statements = (True, True, True, True)
