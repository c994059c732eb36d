"""Drops the rewards after step t instead of the earlier ones.

expect: conditional expectation zero
"""
past_reward_weight = "c"
