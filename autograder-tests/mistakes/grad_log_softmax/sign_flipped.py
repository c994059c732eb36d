"""Returns softmax - onehot: the score with its sign flipped (the gradient of the loss -log pi).

expect: wrong sign
diagnosis: your score has the wrong sign: it is softmax(logits) - onehot(action), the gradient of -log pi; the score
    is onehot(action) - softmax(logits)
"""

import numpy as np


def grad_log_softmax(logits, action):
    p = stable_softmax(logits)
    if isinstance(action, bool) or not isinstance(action, (int, np.integer)) or not 0 <= action < len(p):
        raise ValueError("bad action")
    g = p.copy()
    g[action] -= 1.0
    return g
