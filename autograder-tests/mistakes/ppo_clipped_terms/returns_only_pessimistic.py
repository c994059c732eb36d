"""Returns only the pessimistic term instead of the three arrays.

expect: three arrays
diagnosis: your function returns one array: it must return the three arrays (unclipped, clipped, pessimistic), in that
    order
"""

import types

import numpy as np

_correct_ppo_clipped_terms = ppo_clipped_terms  # noqa: F821 (the solutions module above)


def ppo_clipped_terms(ratio, advantage, clip_epsilon=0.2):
    r = np.asarray(ratio, dtype=float)
    a = np.asarray(advantage, dtype=float)
    if r.shape != a.shape or not np.all(r > 0) or not 0 < clip_epsilon < 1:
        raise ValueError("invalid ratio, advantage or clip_epsilon")
    unclipped = r * a
    clipped = np.clip(r, 1 - clip_epsilon, 1 + clip_epsilon) * a
    return np.minimum(unclipped, clipped)


# ppo_diagnostics calls ppo_clipped_terms but is graded on its own: it keeps the correct terms.
ppo_diagnostics = types.FunctionType(  # noqa: F821
    ppo_diagnostics.__code__,
    dict(globals(), ppo_clipped_terms=_correct_ppo_clipped_terms),  # noqa: F821
    "ppo_diagnostics",
    ppo_diagnostics.__defaults__,
)  # noqa: F821
