"""Uses the clipped branch as the pessimistic term everywhere.

expect: not always the clipped branch
diagnosis: your pessimistic term is the clipped branch everywhere: it is not always the clipped branch, the minimum
    keeps r * A where that is smaller
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
    return unclipped, clipped, clipped


# ppo_diagnostics calls ppo_clipped_terms but is graded on its own: it keeps the correct terms.
ppo_diagnostics = types.FunctionType(  # noqa: F821
    ppo_diagnostics.__code__,
    dict(globals(), ppo_clipped_terms=_correct_ppo_clipped_terms),  # noqa: F821
    "ppo_diagnostics",
    ppo_diagnostics.__defaults__,
)  # noqa: F821
