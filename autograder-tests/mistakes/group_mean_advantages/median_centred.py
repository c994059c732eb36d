"""Centres the rewards on the group's median instead of its mean.

expect: centred on the median
diagnosis: your advantages are centred on the median of the group: the baseline of this function is the group's
    mean reward, so the advantages of a group always sum to zero
"""

import types

import numpy as np

_correct_group_mean_advantages = group_mean_advantages  # noqa: F821 (the solutions module above)


def group_mean_advantages(rewards):
    r = np.asarray(rewards, dtype=float)
    if r.ndim != 1 or len(r) == 0:
        raise ValueError("rewards must be a non-empty vector")
    return r - np.median(r)


# group_zscore_advantages calls group_mean_advantages but is graded on its own: it keeps the correct centring.
group_zscore_advantages = types.FunctionType(
    group_zscore_advantages.__code__,
    dict(globals(), group_mean_advantages=_correct_group_mean_advantages),
    "group_zscore_advantages",
    group_zscore_advantages.__defaults__,
)
