"""Believes a broadcast advantage tells which token caused the reward.

expect: credit is not localised
"""
sequence_credit_statements = (True, True, True, False)
