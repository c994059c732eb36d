"""Takes one run's diagnostics for universal thresholds and doubts that a comparison needs several seeds.

expect: not universal thresholds
"""
evaluation_protocol_statements = (False, False, True, False, True)
