"""Group baselines: several responses to one prompt, each judged against the others.

RLOO centres each reward on the mean of the *other* responses, which keeps the
policy gradient unbiased. Centring on the mean of the *same* group (which contains
the current reward) scales the expected gradient by ``(G - 1) / G``.
"""

import numpy as np

# Constants of the simulation model in simulate_group_baseline_bias.
SUCCESS_PROBABILITY = 0.3
REWARD_OFFSET = 1.0


def leave_one_out_baselines(rewards):
    """Baseline of each response: the mean reward of the other responses in its group.

    Parameters
    ----------
    rewards : array_like, shape (G,)
        Rewards of the ``G >= 2`` responses to one prompt.

    Returns
    -------
    numpy.ndarray, shape (G,)
        ``b_i = (sum_j R_j - R_i) / (G - 1)``.

    Raises
    ------
    ValueError
        If ``rewards`` is not a vector of at least two rewards.

    Examples
    --------
    >>> leave_one_out_baselines([1.0, 2.0, 3.0]).tolist()
    [2.5, 2.0, 1.5]
    """
    ### BEGIN SOLUTION
    r = np.asarray(rewards, dtype=float)
    if r.ndim != 1 or len(r) < 2:
        raise ValueError("leave-one-out baselines need a vector of at least two rewards")
    return (np.sum(r) - r) / (len(r) - 1)
    ### END SOLUTION


def group_mean_advantages(rewards):
    """Advantages centred on the group mean: ``R_i - mean(R)``.

    Parameters
    ----------
    rewards : array_like, shape (G,)
        Rewards of ``G >= 1`` responses to one prompt.

    Returns
    -------
    numpy.ndarray, shape (G,)
        Centred rewards; they sum to zero.

    Raises
    ------
    ValueError
        If ``rewards`` is not a non-empty vector.

    Examples
    --------
    >>> group_mean_advantages([1.0, 3.0]).tolist()
    [-1.0, 1.0]
    """
    ### BEGIN SOLUTION
    r = np.asarray(rewards, dtype=float)
    if r.ndim != 1 or len(r) == 0:
        raise ValueError("rewards must be a non-empty vector")
    return r - np.mean(r)
    ### END SOLUTION


def group_zscore_advantages(rewards, eps=1e-8):
    """Group-normalised advantages: centred rewards divided by the group's standard deviation.

    Uses the population standard deviation (denominator ``G``). When that standard
    deviation is below ``eps``, or zero (a constant group, or a group of one), there
    is no ranking signal and the result is all zeros; ``eps`` is a threshold, never
    added to the denominator.

    Parameters
    ----------
    rewards : array_like, shape (G,)
        Rewards of ``G >= 1`` responses to one prompt.
    eps : float, optional
        Non-negative threshold on the standard deviation.

    Returns
    -------
    numpy.ndarray, shape (G,)

    Raises
    ------
    ValueError
        If ``rewards`` is not a non-empty vector or ``eps`` is negative.

    Notes
    -----
    Course rule, beyond the module's own code -- a non-negative eps: a negative ``eps`` raises
    ``ValueError`` (the module's ``group_zscore_advantages`` accepts any eps).

    Examples
    --------
    >>> group_zscore_advantages([0.0, 2.0]).tolist()
    [-1.0, 1.0]
    """
    ### BEGIN SOLUTION
    if not eps >= 0.0:
        raise ValueError("eps must be non-negative")
    centred = group_mean_advantages(rewards)
    scale = float(np.sqrt(np.mean(centred**2)))
    if scale < eps or scale == 0.0:
        return np.zeros_like(centred)
    return centred / scale
    ### END SOLUTION


def simulate_group_baseline_bias(group_size, groups, seed):
    """Monte Carlo check of the bias and spread of three group gradient estimators.

    The model: a one-parameter policy answers correctly with probability
    ``p = 0.3`` (``SUCCESS_PROBABILITY``), parameterised by its logit ``theta``. A
    response ``Y`` is 1 (correct) or 0; its score is ``d log pi(Y) / d theta = Y - p``
    and its reward is ``R = 1 + Y`` (``REWARD_OFFSET`` plus correctness). The true
    gradient is ``d E[R] / d theta = p * (1 - p)``.

    Draw all responses at once, exactly as
    ``Y = np.random.default_rng(seed).random((groups, group_size)) < p``.
    For each group, each estimator is the mean over its ``G`` responses of
    ``(R_i - b_i) * (Y_i - p)`` with

    - ``plain``: ``b_i = 0``;
    - ``same_group``: ``b_i`` = mean reward of the whole group (includes ``R_i``);
    - ``rloo``: ``b_i`` = mean reward of the other ``G - 1`` responses.

    Parameters
    ----------
    group_size : int
        Responses per group, ``G >= 2``.
    groups : int
        Number of simulated groups, ``>= 1``.
    seed : int
        Seed of ``numpy.random.default_rng``.

    Returns
    -------
    dict of str to float
        ``true_gradient``; ``plain_scale``, ``same_group_scale``, ``rloo_scale``
        (mean estimate over groups divided by the true gradient);
        ``predicted_same_group_scale`` = ``(G - 1) / G``; ``plain_std``,
        ``same_group_std``, ``rloo_std`` (population standard deviation of the
        per-group estimates).

    Raises
    ------
    ValueError
        If ``group_size < 2`` or ``groups < 1``, or either is not an integer.

    Examples
    --------
    >>> result = simulate_group_baseline_bias(group_size=2, groups=10, seed=1)
    >>> result["predicted_same_group_scale"]
    0.5
    """
    ### BEGIN SOLUTION
    for name, value, smallest in (("group_size", group_size, 2), ("groups", groups, 1)):
        if isinstance(value, (bool, np.bool_)) or not isinstance(value, (int, np.integer)):
            raise ValueError(f"{name} must be an integer")
        if value < smallest:
            raise ValueError(f"{name} must be at least {smallest}")
    p = SUCCESS_PROBABILITY
    rng = np.random.default_rng(seed)
    y = (rng.random((groups, group_size)) < p).astype(float)
    reward = REWARD_OFFSET + y
    score = y - p
    group_sum = reward.sum(axis=1, keepdims=True)
    baselines = {
        "plain": np.zeros_like(reward),
        "same_group": group_sum / group_size,
        "rloo": (group_sum - reward) / (group_size - 1),
    }
    true_gradient = p * (1.0 - p)
    result = {"true_gradient": true_gradient}
    estimates = {name: np.mean((reward - b) * score, axis=1) for name, b in baselines.items()}
    for name, per_group in estimates.items():
        result[f"{name}_scale"] = float(np.mean(per_group) / true_gradient)
    result["predicted_same_group_scale"] = (group_size - 1) / group_size
    for name, per_group in estimates.items():
        result[f"{name}_std"] = float(np.std(per_group))
    return result
    ### END SOLUTION
