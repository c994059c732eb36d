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
    ### BEGIN SOLUTION
    z = np.asarray(logits, dtype=float)
    if z.ndim != 1 or z.size == 0:
        raise ValueError("logits must be a non-empty one-dimensional array")
    exp_z = np.exp(z - np.max(z))
    return exp_z / np.sum(exp_z)
    ### END SOLUTION


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
    ### BEGIN SOLUTION
    p = stable_softmax(logits)
    if isinstance(action, (bool, np.bool_)) or not isinstance(action, (int, np.integer)):
        raise ValueError("action must be an integer index")
    if not 0 <= action < len(p):
        raise ValueError(f"action {action} is out of range for {len(p)} actions")
    score = -p
    score[action] += 1.0
    return score
    ### END SOLUTION


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
    ### BEGIN SOLUTION
    r = np.asarray(rewards, dtype=float)
    if r.ndim != 1:
        raise ValueError("rewards must be one-dimensional")
    if not 0.0 <= gamma <= 1.0:
        raise ValueError("gamma must lie in [0, 1]")
    result = np.empty_like(r)
    running = 0.0
    for t in range(len(r) - 1, -1, -1):
        running = r[t] + gamma * running
        result[t] = running
    return result
    ### END SOLUTION


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
    ### BEGIN SOLUTION
    g = reward_to_go(rewards, gamma)
    return gamma ** np.arange(len(g), dtype=float) * g
    ### END SOLUTION


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
    ### BEGIN SOLUTION
    q = np.asarray(action_values, dtype=float)
    z = np.asarray(logits, dtype=float)
    if z.ndim != 1 or q.shape != z.shape or z.size < 2:
        raise ValueError("logits and action_values must be aligned vectors of at least two actions")
    p = stable_softmax(z)
    # Summing (onehot(a) - p)^2 term by term avoids the cancellation of the closed
    # form 1 - 2 p_a + sum p^2 when one action is nearly certain.
    squared_norms = np.sum((np.eye(len(p)) - p) ** 2, axis=1)
    weights = p * squared_norms
    return float(np.sum(weights * q) / np.sum(weights))
    ### END SOLUTION
