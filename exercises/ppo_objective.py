# Your file: implement every function that raises NotImplementedError.
# Check your work with `grader check` (visible tests); hidden tests run when it is graded.
# Generated from the course's reference solutions by `grader stubs`.
"""The PPO clipped surrogate and the diagnostics that tell what clipping did.

With ``epsilon = 0.2`` the clip interval is ``[0.8, 1.2]``. Two fractions answer
different questions: how many ratios lie outside the interval, and how many rows
had their pessimistic minimum changed by clipping.
"""

from dataclasses import dataclass

import numpy as np


@dataclass(frozen=True)
class PPODiagnostics:
    """Batch diagnostics of one PPO update (course-provided, nothing to implement).

    Attributes
    ----------
    ratio_outside_fraction : float
        Fraction of ratios strictly outside ``[1 - eps, 1 + eps]``.
    active_clip_fraction : float
        Fraction of rows where the clipped branch is strictly smaller than the
        unclipped one, i.e. clipping changed the pessimistic minimum (by more than
        1e-15, as the module tests it, or at all: both are right).
    approx_kl_nonnegative : float
        Mean of ``(r - 1) - log r``, a non-negative sample estimate of KL(old || new).
    mean_log_ratio : float
        Mean of ``log r = new_log_prob - old_log_prob``.
    """

    ratio_outside_fraction: float
    active_clip_fraction: float
    approx_kl_nonnegative: float
    mean_log_ratio: float


def ppo_clipped_terms(ratio, advantage, clip_epsilon=0.2):
    """Elementwise terms of the PPO clipped surrogate (to be maximised).

    Parameters
    ----------
    ratio : array_like
        Probability ratios ``pi_new / pi_old``, all strictly positive.
    advantage : array_like
        Advantages, same shape as ``ratio``.
    clip_epsilon : float, optional
        Half-width of the clip interval, ``0 < clip_epsilon < 1``.

    Returns
    -------
    unclipped, clipped, pessimistic : numpy.ndarray
        ``r * A``, ``clip(r, 1 - eps, 1 + eps) * A`` and their elementwise minimum.

    Raises
    ------
    ValueError
        If the shapes differ, a ratio is not strictly positive, or ``clip_epsilon``
        is outside ``(0, 1)``.

    Notes
    -----
    Course rule, beyond the module's own code -- clip_epsilon in (0, 1): any other
    ``clip_epsilon`` raises ``ValueError`` (the module's ``ppo_clipped_terms`` accepts any).

    Examples
    --------
    >>> [t.tolist() for t in ppo_clipped_terms([2.0], [1.0], clip_epsilon=0.5)]
    [[2.0], [1.5], [1.5]]
    """
    raise NotImplementedError("ppo_clipped_terms is not implemented yet: replace this line with your code")


def ppo_diagnostics(new_log_prob, old_log_prob, advantage, clip_epsilon=0.2):
    """Diagnostics of a PPO batch from new and old log-probabilities.

    ``active_clip_fraction`` counts rows where clipping changed the pessimistic
    minimum, which is not the same as the ratio lying outside the interval. Two tests
    of "changed" are right: ``pessimistic < unclipped`` and the module's own
    ``pessimistic < unclipped - 1e-15``; they differ only on rows where clipping lowered
    the minimum by at most 1e-15 (a ratio within a few ulps of the interval's end), and
    such a row may count either way.

    ``approx_kl_nonnegative`` is the mean of ``(r - 1) - log r`` with
    ``r = pi_new / pi_old`` on actions sampled from the old policy. Each term is at
    least zero, and its expectation under the old policy is ``KL(pi_old || pi_new)
    = E_{a ~ pi_old}[log pi_old(a) - log pi_new(a)]`` (given the usual support
    conditions): the sampling policy first, the policy being updated second. The
    module's text calls this the *reverse* KL, reverse to ``KL(pi_new || pi_old)``,
    which would average over the new policy's actions, absent from the batch (texts
    differ on which order they call forward; the arguments are the safe name). It
    describes one batch and enforces nothing.

    Parameters
    ----------
    new_log_prob, old_log_prob, advantage : array_like
        Same shape; at least one element.
    clip_epsilon : float, optional
        Half-width of the clip interval, ``0 < clip_epsilon < 1``.

    Returns
    -------
    PPODiagnostics
        All four fields as Python floats.

    Raises
    ------
    ValueError
        If the shapes differ, the batch is empty, or ``clip_epsilon`` is outside ``(0, 1)``.

    Notes
    -----
    Course rules, beyond the module's own code -- a non-empty batch: an empty batch
    raises ``ValueError`` (the module's ``ppo_diagnostics`` returns numpy's nan mean of
    nothing); clip_epsilon in (0, 1): any other ``clip_epsilon`` raises ``ValueError``.

    Examples
    --------
    >>> ppo_diagnostics([0.0], [0.0], [1.0]).active_clip_fraction
    0.0
    """
    raise NotImplementedError("ppo_diagnostics is not implemented yet: replace this line with your code")
