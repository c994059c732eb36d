"""Keeps only the score term when the integrand depends on theta.

expect: E[grad f_theta(X)] is part of the gradient
"""
direct_dependence_statements = (True, True, True, False)
