"""Correct arithmetic but no validation, and it needs arrays (multiplies its inputs directly).

expect: must raise ValueError
diagnosis: your function checks nothing and needs arrays: different shapes, ratios that are not positive and
    clip_epsilon outside (0, 1) must raise ValueError
"""

import types

import numpy as np

_correct_ppo_clipped_terms = ppo_clipped_terms  # noqa: F821 (the solutions module above)


def ppo_clipped_terms(ratio, advantage, clip_epsilon=0.2):
    r, a = ratio, advantage
    unclipped = ratio * advantage
    clipped = np.clip(r, 1 - clip_epsilon, 1 + clip_epsilon) * a
    return unclipped, clipped, np.minimum(unclipped, clipped)


# ppo_diagnostics calls ppo_clipped_terms but is graded on its own: it keeps the correct terms.
ppo_diagnostics = types.FunctionType(  # noqa: F821
    ppo_diagnostics.__code__,
    dict(globals(), ppo_clipped_terms=_correct_ppo_clipped_terms),  # noqa: F821
    "ppo_diagnostics",
    ppo_diagnostics.__defaults__,
)  # noqa: F821
