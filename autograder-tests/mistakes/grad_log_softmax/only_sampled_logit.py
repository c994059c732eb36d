"""Only the sampled action's logit gets a gradient (1 - pi(a)); the normaliser's effect on the others is forgotten.

expect: not only the sampled action's logit
diagnosis: your score changes only the sampled action's component: every logit changes log pi(action) through the
    normaliser, not only the sampled action's logit (the others get -pi(k))
"""

import numpy as np


def grad_log_softmax(logits, action):
    p = stable_softmax(logits)
    if isinstance(action, bool) or not isinstance(action, (int, np.integer)) or not 0 <= action < len(p):
        raise ValueError("bad action")
    g = np.zeros_like(p)
    g[action] = 1.0 - p[action]
    return g
