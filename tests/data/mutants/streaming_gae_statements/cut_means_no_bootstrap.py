"""Believes a trace cut also removes the bootstrap of the buffer's last record.

expect: the recursion stops, the bootstrap does not
"""
streaming_gae_statements = (True, True, True)
