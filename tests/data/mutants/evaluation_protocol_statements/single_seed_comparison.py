"""Compares methods on one seed each and reads a smoke run as a measure of the method.

expect: differ by chance as much as by method
"""
evaluation_protocol_statements = (False, False, False, False, False)
