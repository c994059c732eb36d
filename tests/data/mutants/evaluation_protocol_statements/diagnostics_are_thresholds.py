"""Takes one run's diagnostics (approximate KL, clip fractions) for thresholds that hold across problems.

expect: not universal thresholds
"""
evaluation_protocol_statements = (False, True, True, False, True)
