"""Rejects a group of one response, although G >= 1 is valid (its advantage is 0).

expect: group of one response is valid
diagnosis: your function rejects a group of one response: a group of one response is valid (G >= 1) and its advantage
    is 0
"""

import types

import numpy as np

_correct_group_mean_advantages = group_mean_advantages  # noqa: F821 (the solutions module above)


def group_mean_advantages(rewards):
    r = np.asarray(rewards, dtype=float)
    if r.ndim != 1 or len(r) < 2:
        raise ValueError("a group needs at least two responses")
    return r - r.mean()


# group_zscore_advantages calls group_mean_advantages but is graded on its own: it keeps the correct centring.
group_zscore_advantages = types.FunctionType(
    group_zscore_advantages.__code__,
    dict(globals(), group_mean_advantages=_correct_group_mean_advantages),
    "group_zscore_advantages",
    group_zscore_advantages.__defaults__,
)
