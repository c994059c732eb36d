"""Clips the advantage to [1 - eps, 1 + eps] instead of the ratio.

expect: clips the advantage
diagnosis: your function clips the advantage instead of the ratio: clip r to [1 - eps, 1 + eps] and multiply by the
    unclipped advantage
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
    clipped = r * np.clip(a, 1 - clip_epsilon, 1 + clip_epsilon)
    return unclipped, clipped, np.minimum(unclipped, clipped)


# ppo_diagnostics calls ppo_clipped_terms but is graded on its own: it keeps the correct terms.
ppo_diagnostics = types.FunctionType(  # noqa: F821
    ppo_diagnostics.__code__,
    dict(globals(), ppo_clipped_terms=_correct_ppo_clipped_terms),  # noqa: F821
    "ppo_diagnostics",
    ppo_diagnostics.__defaults__,
)  # noqa: F821
