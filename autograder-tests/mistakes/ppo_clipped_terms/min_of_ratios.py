"""Takes the minimum of the ratio and its clipped value, then multiplies by A (wrong for negative advantages).

expect: min(r, clip(r)) * A
diagnosis: your pessimistic term is min(r, clip(r)) * A: the minimum of the ratios is pessimistic only for a positive
    advantage; the pessimistic term is the elementwise minimum of the products r * A and clip(r) * A
"""

import types

import numpy as np

_correct_ppo_clipped_terms = ppo_clipped_terms  # noqa: F821 (the solutions module above)


def ppo_clipped_terms(ratio, advantage, clip_epsilon=0.2):
    r = np.asarray(ratio, dtype=float)
    a = np.asarray(advantage, dtype=float)
    if r.shape != a.shape or not np.all(r > 0) or not 0 < clip_epsilon < 1:
        raise ValueError("invalid ratio, advantage or clip_epsilon")
    clipped_ratio = np.clip(r, 1 - clip_epsilon, 1 + clip_epsilon)
    return r * a, clipped_ratio * a, np.minimum(r, clipped_ratio) * a


# ppo_diagnostics calls ppo_clipped_terms but is graded on its own: it keeps the correct terms.
ppo_diagnostics = types.FunctionType(  # noqa: F821
    ppo_diagnostics.__code__,
    dict(globals(), ppo_clipped_terms=_correct_ppo_clipped_terms),  # noqa: F821
    "ppo_diagnostics",
    ppo_diagnostics.__defaults__,
)  # noqa: F821
