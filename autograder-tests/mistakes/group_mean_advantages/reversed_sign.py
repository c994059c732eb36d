"""Returns mean(R) - R_i: the sign of every advantage is reversed.

expect: sign is reversed
diagnosis: your advantages are mean(R) - R_i: the sign is reversed, a better than average response must get a positive
    advantage
"""

import types

import numpy as np

_correct_group_mean_advantages = group_mean_advantages  # noqa: F821 (the solutions module above)


def group_mean_advantages(rewards):
    r = np.asarray(rewards, dtype=float)
    if r.ndim != 1 or len(r) == 0:
        raise ValueError("rewards must be a non-empty vector")
    return r.mean() - r


# group_zscore_advantages calls group_mean_advantages but is graded on its own: it keeps the correct centring.
group_zscore_advantages = types.FunctionType(
    group_zscore_advantages.__code__,
    dict(globals(), group_mean_advantages=_correct_group_mean_advantages),
    "group_zscore_advantages",
    group_zscore_advantages.__defaults__,
)
