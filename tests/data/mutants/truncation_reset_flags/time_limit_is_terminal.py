"""Treats a time limit as a terminal state: no bootstrap, terminated=True.

expect: continuation value
"""
truncation_reset_flags = {"bootstrap": False, "recursion_continues": False, "terminated": True, "trace_cut": True}
