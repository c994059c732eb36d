"""Does not check the action: -1 wraps around to the last action, K raises IndexError.

expect: must not wrap
diagnosis: your function does not check the action: an action outside [0, K) must raise ValueError, and a negative
    index must not wrap around
"""


def grad_log_softmax(logits, action):
    g = -stable_softmax(logits)
    g[action] += 1.0
    return g
