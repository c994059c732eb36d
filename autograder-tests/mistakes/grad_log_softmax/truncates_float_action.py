"""Converts the action with int(), so 1.5 silently becomes action 1.

expect: not be rounded or truncated
diagnosis: your function turns a fractional action into an integer: a non-integer action must raise ValueError, it
    must not be rounded or truncated
"""


def grad_log_softmax(logits, action):
    p = stable_softmax(logits)
    action = int(action)
    if not 0 <= action < len(p):
        raise ValueError("action out of range")
    g = -p
    g[action] += 1.0
    return g
