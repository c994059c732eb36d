"""The default clip_epsilon is 0.1, not the docstring's 0.2 (every call that passes clip_epsilon is right).

expect: default clip_epsilon
diagnosis: called without clip_epsilon, your function clips to another interval: the default clip_epsilon is the
    docstring's 0.2, so a call that leaves it out must clip the ratio to [0.8, 1.2]
"""

import types

ppo_clipped_terms = types.FunctionType(  # noqa: F821 (the solutions module above)
    ppo_clipped_terms.__code__, globals(), "ppo_clipped_terms", (0.1,)
)  # noqa: F821
