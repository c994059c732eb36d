"""Believes the backward pass needs storage that grows with the episode (a stack or a reversed copy).

expect: only the running sum is carried
"""
backward_pass_costs = ("linear", "linear")
