"""Believes the buffer boundary is a property of the episode, never to be crossed.

expect: the cut belongs to the array
"""
streaming_gae_statements = (True, False, False)
