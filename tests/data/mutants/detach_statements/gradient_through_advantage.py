"""Believes the advantage may pass gradient into the critic.

expect: must enter the actor loss detached
"""
detach_statements = (False, False, False)
