# Your file: implement every function that raises NotImplementedError.
# Check your work with `grader check` (visible tests); hidden tests run when it is graded.
# Generated from the course's reference solutions by `grader stubs`.
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
    raise NotImplementedError("leave_one_out_baselines is not implemented yet: replace this line with your code")


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
    raise NotImplementedError("group_mean_advantages is not implemented yet: replace this line with your code")


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
    raise NotImplementedError("group_zscore_advantages is not implemented yet: replace this line with your code")


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
    raise NotImplementedError("simulate_group_baseline_bias is not implemented yet: replace this line with your code")
