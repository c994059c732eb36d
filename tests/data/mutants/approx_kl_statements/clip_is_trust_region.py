"""Believes clipping guarantees a KL trust region.

expect: limits the local surrogate gain
"""
approx_kl_statements = (True, True, False, True)
