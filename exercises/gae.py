# Your file: implement every function that raises NotImplementedError.
# Check your work with `grader check` (visible tests); hidden tests run when it is graded.
# Generated from the course's reference solutions by `grader stubs`.
"""Generalized advantage estimation with separate bootstrap and trace masks.

Two questions need two masks. ``terminated`` answers "does the next state have a
continuation value?" (bootstrap). ``trace_cuts`` answers "does the next record of
this array belong to the same backward recursion?". A time-limit truncation or
the end of a rollout buffer is ``terminated=False, trace_cut=True``.
"""

import numpy as np


def gae_advantages(rewards, values, next_values, terminated, trace_cuts, gamma, gae_lambda):
    """GAE(gamma, lambda) advantages of one array of transitions, in one backward pass.

    ``delta_t = r_t + gamma * (1 - terminated_t) * next_values_t - values_t`` and
    ``A_t = delta_t + gamma * gae_lambda * (1 - trace_cuts_t) * A_{t+1}``.

    Conventions: ``terminated`` alone decides the bootstrap; ``trace_cuts`` alone
    decides whether the recursion continues into record ``t + 1``. Callers set a
    trace cut at every episode end and at the last record of the buffer. The
    recursion never carries past the end of the array (``A_T = 0``). O(T) time.

    Parameters
    ----------
    rewards, values, next_values : array_like, shape (T,)
        Reward of each transition, ``V(s_t)`` and ``V(s_{t+1})`` (the value of the
        true next observation, also at truncation).
    terminated, trace_cuts : array_like of bool, shape (T,)
        The two masks.
    gamma, gae_lambda : float
        Discount and GAE parameter, both in ``[0, 1]``.

    Returns
    -------
    numpy.ndarray, shape (T,)
        Advantages; returns targets are ``values + advantages``.

    Raises
    ------
    ValueError
        If the inputs are not aligned one-dimensional arrays, or ``gamma`` or
        ``gae_lambda`` lies outside ``[0, 1]``.

    Examples
    --------
    >>> gae_advantages([1.0], [0.5], [2.0], [False], [True], gamma=0.5, gae_lambda=0.5).tolist()
    [1.5]
    """
    raise NotImplementedError("gae_advantages is not implemented yet: replace this line with your code")
