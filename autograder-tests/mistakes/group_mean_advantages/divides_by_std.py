"""Divides the centred rewards by their standard deviation (that is the z-score, not centring).

expect: rescaled
diagnosis: your advantages are rescaled by the standard deviation (that is group_zscore_advantages): this function
    only subtracts the group mean
"""

import types

import numpy as np

_correct_group_mean_advantages = group_mean_advantages  # noqa: F821 (the solutions module above)


def group_mean_advantages(rewards):
    r = np.asarray(rewards, dtype=float)
    if r.ndim != 1 or len(r) == 0:
        raise ValueError("rewards must be a non-empty vector")
    centred = r - r.mean()
    std = centred.std()
    return centred / std if std > 0 else centred


# group_zscore_advantages calls group_mean_advantages but is graded on its own: it keeps the correct centring.
group_zscore_advantages = types.FunctionType(
    group_zscore_advantages.__code__,
    dict(globals(), group_mean_advantages=_correct_group_mean_advantages),
    "group_zscore_advantages",
    group_zscore_advantages.__defaults__,
)
