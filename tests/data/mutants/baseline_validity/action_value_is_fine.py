"""Treats Q(s, a) of the taken action as a valid baseline and the same-group mean as biased.

expect: the very action whose score it multiplies
"""
baseline_validity = ("unbiased", "unbiased", "unbiased", "unbiased", "biased")
