"""Lets the recursion run on into the next buffer and sets no trace cut.

expect: does not see
"""
buffer_boundary_flags = {"bootstrap": True, "recursion_continues": True, "terminated": False, "trace_cut": False}
