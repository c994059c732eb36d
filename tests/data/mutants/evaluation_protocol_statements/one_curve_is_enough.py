"""Reads one seed's rising curve as robustness and CartPole success as a statement about LLMs.

expect: one convenient seed shows one run
"""
evaluation_protocol_statements = (True, True, True, True, False)
