"""Correct arithmetic but no input validation, and it needs an array (calls .mean() on its input).

expect: must raise ValueError
diagnosis: your function checks nothing and needs an array: an empty or 2-D input must raise ValueError, and lists
    must work
"""

import types

import numpy as np

_correct_group_mean_advantages = group_mean_advantages  # noqa: F821 (the solutions module above)


def group_mean_advantages(rewards):
    return rewards - rewards.mean()


# group_zscore_advantages calls group_mean_advantages but is graded on its own: it keeps the correct centring.
group_zscore_advantages = types.FunctionType(
    group_zscore_advantages.__code__,
    dict(globals(), group_mean_advantages=_correct_group_mean_advantages),
    "group_zscore_advantages",
    group_zscore_advantages.__defaults__,
)
