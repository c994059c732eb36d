"""Vectorised with gamma ** (k - t) times an upper-triangular mask: 0 ** negative = inf gives NaN at gamma = 0.

expect: with gamma = 0 the return is the immediate reward
diagnosis: your vectorised formula takes 0 to negative powers (NaN): with gamma = 0 the return is the immediate
    reward, G_t = r_t
"""

import numpy as np


def reward_to_go(rewards, gamma):
    r = np.asarray(rewards, dtype=float)
    if r.ndim != 1 or not 0 <= gamma <= 1:
        raise ValueError("bad input")
    t = np.arange(len(r))
    exponents = (t[None, :] - t[:, None]).astype(float)
    weights = gamma**exponents * np.triu(np.ones((len(r), len(r))))
    return weights @ r
