"""Gives G / (G - 1) instead of (G - 1) / G.

expect: (G - 1) / G = 7 / 8
"""
same_group_scale = 8 / 7
