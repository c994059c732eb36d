"""Believes detaching the advantages biases the policy gradient.

expect: treats the advantage as a coefficient
"""
detach_statements = (True, True, True)
