"""Does not check the action: -1 wraps around to the last action, K raises IndexError.

expect: must not wrap
"""


def grad_log_softmax(logits, action):
    g = -stable_softmax(logits)
    g[action] += 1.0
    return g
