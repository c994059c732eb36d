"""Accepts only Python ints as actions, so a numpy integer from rng.choice raises ValueError.

expect: numpy integer action
diagnosis: your function rejects a numpy integer action (as returned by rng.choice or argmax): it must be accepted
    like a Python int
"""


def grad_log_softmax(logits, action):
    p = stable_softmax(logits)
    if type(action) is not int or not 0 <= action < len(p):
        raise ValueError("action must be an int in [0, K)")
    g = -p
    g[action] += 1.0
    return g
