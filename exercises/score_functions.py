# Your file: implement every function that raises NotImplementedError.
# Check your work with `grader check` (visible tests); hidden tests run when it is graded.
# Generated from the course's reference solutions by `grader stubs`.
"""Score functions of a softmax policy, returns-to-go and the optimal constant baseline.

The score-function (REINFORCE) identity moves the derivative onto ``log pi(a)``:
the reward only has to be evaluated on sampled actions, never differentiated.
"""

import numpy as np


def stable_softmax(logits):
    """Softmax of a vector of logits, safe for very large or very small logits.

    Parameters
    ----------
    logits : array_like, shape (K,)
        Unnormalised log-probabilities of K >= 1 actions.

    Returns
    -------
    numpy.ndarray, shape (K,)
        Probabilities: non-negative, summing to one.

    Raises
    ------
    ValueError
        If ``logits`` is not a non-empty one-dimensional array.

    Notes
    -----
    Subtracting the largest logit before exponentiating leaves the result unchanged
    and keeps ``exp`` from overflowing.

    Examples
    --------
    >>> stable_softmax([0.0, 0.0]).tolist()
    [0.5, 0.5]
    """
    raise NotImplementedError("stable_softmax is not implemented yet: replace this line with your code")


def grad_log_softmax(logits, action):
    """Gradient of ``log softmax(logits)[action]`` with respect to the logits.

    Parameters
    ----------
    logits : array_like, shape (K,)
        Logits of the policy.
    action : int
        Index of the sampled action, ``0 <= action < K``.

    Returns
    -------
    numpy.ndarray, shape (K,)
        The score vector ``onehot(action) - softmax(logits)``; its components sum to zero.

    Raises
    ------
    ValueError
        If ``logits`` is not a non-empty vector, or ``action`` is not an integer in ``[0, K)``.

    Notes
    -----
    Course rule, beyond the module's own code -- an integer action: a non-integer action such as
    1.5 raises ``ValueError`` (the module's ``grad_log_softmax`` checks only the range, and 1.5 then
    fails as an ``IndexError``).

    Examples
    --------
    >>> grad_log_softmax([0.0, 0.0], 1).tolist()
    [-0.5, 0.5]
    """
    raise NotImplementedError("grad_log_softmax is not implemented yet: replace this line with your code")


def reward_to_go(rewards, gamma):
    """Discounted return from each step to the end of the episode.

    ``G_t = r_t + gamma * r_{t+1} + gamma**2 * r_{t+2} + ...``, computed in one
    backward pass (O(T) time).

    Parameters
    ----------
    rewards : array_like, shape (T,)
        Rewards of one episode, in time order. ``T = 0`` is allowed.
    gamma : float
        Discount factor in ``[0, 1]``.

    Returns
    -------
    numpy.ndarray, shape (T,)
        ``G_t`` for every step.

    Raises
    ------
    ValueError
        If ``rewards`` is not one-dimensional or ``gamma`` lies outside ``[0, 1]``.

    Examples
    --------
    >>> reward_to_go([1.0, 1.0], 0.5).tolist()
    [1.5, 1.0]
    """
    raise NotImplementedError("reward_to_go is not implemented yet: replace this line with your code")


def discounted_score_weights(rewards, gamma):
    """Weights ``gamma**t * G_t`` that multiply the score at step ``t``.

    They are the exact score weights of the literal objective
    ``E[sum_t gamma**t r_t]``, whose rewards are discounted from the start of the
    episode. The common form with ``G_t`` alone optimises a different (occupancy
    normalised) objective.

    Parameters
    ----------
    rewards : array_like, shape (T,)
        Rewards of one episode.
    gamma : float
        Discount factor in ``[0, 1]``.

    Returns
    -------
    numpy.ndarray, shape (T,)

    Raises
    ------
    ValueError
        As :func:`reward_to_go`.

    Examples
    --------
    >>> discounted_score_weights([1.0, 1.0], 0.5).tolist()
    [1.5, 0.5]
    """
    raise NotImplementedError("discounted_score_weights is not implemented yet: replace this line with your code")


def optimal_constant_baseline(logits, action_values):
    """Variance-minimising constant baseline for a one-step softmax policy.

    For the estimator ``(Q(a) - b) * grad log pi(a)`` with ``a ~ pi``, the constant
    ``b`` minimising the total variance is

        b* = sum_a pi(a) |g(a)|^2 Q(a) / sum_a pi(a) |g(a)|^2,

    where ``g(a) = onehot(a) - pi`` is the score vector with respect to the logits.
    Unlike ``V = sum_a pi(a) Q(a)``, it weights rare actions (large score vectors)
    more heavily.

    Parameters
    ----------
    logits : array_like, shape (K,)
        Policy logits, ``K >= 2``.
    action_values : array_like, shape (K,)
        ``Q(a)`` for every action.

    Returns
    -------
    float
        ``b*``.

    Raises
    ------
    ValueError
        If the inputs are not aligned vectors of at least two actions.

    Examples
    --------
    >>> optimal_constant_baseline([0.0, 0.0], [1.0, 3.0])
    2.0
    """
    raise NotImplementedError("optimal_constant_baseline is not implemented yet: replace this line with your code")
