# Your file: implement every function that raises NotImplementedError.
# Check your work with `grader check` (visible tests); hidden tests run when it is graded.
# Generated from the course's reference solutions by `grader stubs`.
"""Policy gradients on the response tokens of an autoregressive model.

The logits at position ``k`` score the label ``input_ids[:, k + 1]``, so every
per-token array here is aligned with the labels ``input_ids[:, 1:]`` and has
shape ``[B, T - 1]``. Only response tokens are actions of the policy: prompt
tokens, padding and everything after the first generated EOS are masked out.

Masked positions are ignored entirely: their log-probabilities may hold any
value, even ``-inf`` or ``nan``, without changing a result (a course rule beyond the
module's own code, which multiplies by the mask: each function's Notes say which
course rules it follows).
"""

import numpy as np

REDUCTIONS = ("token_mean", "sequence_mean", "sequence_sum_mean")


def response_token_mask(input_ids, prompt_lengths, pad_token_id, eos_token_id, include_eos=True):
    """Float 0/1 mask of the response tokens, aligned with the labels ``input_ids[:, 1:]``.

    Column ``k`` of the mask describes ``input_ids[b, k + 1]``. A position ``pos >= 1``
    is a response token when ``pos >= prompt_lengths[b]``, it comes no later than the
    first EOS at or after the prompt, and it is not padding. The first such EOS ends
    the response; it is counted when ``include_eos`` is true (the generated EOS is a
    policy action) and not counted otherwise. If ``pad_token_id == eos_token_id``, that
    first EOS is still the end of the response and the tokens after it are padding.
    A row without EOS has a response running to the end.

    Parameters
    ----------
    input_ids : array_like of int, shape (B, T)
        Prompt followed by the generated response (then padding), per row.
    prompt_lengths : array_like of int, shape (B,)
        Number of prompt tokens of each row (BOS included), ``1 <= length <= T``.
    pad_token_id, eos_token_id : int
        Token ids of padding and of the end-of-sequence token.
    include_eos : bool, optional
        Whether the generated EOS counts as a response token (default True).

    Returns
    -------
    numpy.ndarray of float, shape (B, T - 1)

    Raises
    ------
    ValueError
        If ``input_ids`` is not 2-D, ``prompt_lengths`` is not of shape ``(B,)``, or a
        prompt length lies outside ``[1, T]``.

    Notes
    -----
    Course rules, beyond the module's own code (whose worked ``response_token_mask`` has
    no ``include_eos``; its lab passes ``include_eos=True``, the default here, and the
    graded checks of the default never pass the keyword):

    - include_eos=False: the first EOS still ends the response but is not counted;
    - pad == eos: when ``pad_token_id == eos_token_id`` the first EOS at or after the
      prompt still ends the response and counts (the module's code tests for padding
      first, so with pad == eos it never counts the EOS);
    - prompt lengths in [1, T]: any other prompt length raises ``ValueError``.

    Examples
    --------
    >>> response_token_mask([[5, 6, 7, 9]], [2], pad_token_id=0, eos_token_id=9).tolist()
    [[0.0, 1.0, 1.0]]
    """
    raise NotImplementedError("response_token_mask is not implemented yet: replace this line with your code")


def sequence_log_probability(token_log_probs, mask=None):
    """Log-probability of whole sequences: the (masked) sum of token log-probabilities.

    Parameters
    ----------
    token_log_probs : array_like, shape (..., L)
        Log-probability of each label token.
    mask : array_like, shape (..., L), optional
        0/1 response mask; positions where it is 0 are ignored entirely. Without a
        mask every position counts.

    Returns
    -------
    numpy.ndarray, shape (...)
        Sum over the last axis.

    Raises
    ------
    ValueError
        If ``mask`` is given and its shape differs from ``token_log_probs``.

    Notes
    -----
    Course rule, beyond the module's own code -- -inf and nan at masked positions: they
    change nothing, so ignore masked positions (``np.where``) rather than multiplying by
    the mask (``0 * -inf`` is nan; the module's own ``sequence_log_probability``
    multiplies, and its lab's masked positions hold finite values only).

    Examples
    --------
    >>> sequence_log_probability([[-1.0, -2.0]], [[1.0, 0.0]]).tolist()
    [-1.0]
    """
    raise NotImplementedError("sequence_log_probability is not implemented yet: replace this line with your code")


def broadcast_sequence_advantages(sequence_advantages, token_mask):
    """Give every response token of a sequence that sequence's advantage.

    One response-level coefficient per row implements the whole-response
    score-function objective; it does not say which token deserved the credit.

    Parameters
    ----------
    sequence_advantages : array_like, shape (B,)
    token_mask : array_like, shape (B, L)
        0/1 response mask.

    Returns
    -------
    numpy.ndarray, shape (B, L)
        ``sequence_advantages[b]`` where the mask is 1, 0 elsewhere.

    Raises
    ------
    ValueError
        If the advantages are not ``[B]`` or the mask not ``[B, L]``.

    Examples
    --------
    >>> broadcast_sequence_advantages([2.0], [[0.0, 1.0, 1.0]]).tolist()
    [[0.0, 2.0, 2.0]]
    """
    raise NotImplementedError("broadcast_sequence_advantages is not implemented yet: replace this line with your code")


def masked_token_ppo_terms(new_log_probs, old_log_probs, advantages, mask, clip_epsilon=0.2):
    """Token-level PPO terms on response tokens only.

    Parameters
    ----------
    new_log_probs, old_log_probs : array_like, shape (B, L)
        Token log-probabilities under the current and the behaviour policy.
    advantages : array_like, shape (B,) or (B, L)
        One advantage per sequence (broadcast over its tokens) or per token.
    mask : array_like, shape (B, L)
        0/1 response mask.
    clip_epsilon : float, optional
        Half-width of the clip interval, ``0 < clip_epsilon < 1``.

    Returns
    -------
    ratio, unclipped, clipped, pessimistic : numpy.ndarray, shape (B, L)
        At response tokens: ``exp(new - old)``, ``r * A``, ``clip(r) * A`` and their
        minimum. At masked positions the ratio is 1 (the multiplicative identity)
        and the three terms are 0.

    Raises
    ------
    ValueError
        If the shapes do not fit or ``clip_epsilon`` is outside ``(0, 1)``.

    Notes
    -----
    Course rule, beyond the module's own code -- -inf and nan at masked positions: they
    change nothing, so ignore masked positions (``np.where``) rather than multiplying by
    the mask (``0 * -inf`` is nan; the module's own ``sequence_log_probability``
    multiplies, and its lab's masked positions hold finite values only).
    Course rule -- clip_epsilon in (0, 1): any other ``clip_epsilon`` raises ``ValueError``.

    Examples
    --------
    >>> ratio, _, _, pessimistic = masked_token_ppo_terms(
    ...     [[0.0, 0.5]], [[0.0, 0.5]], [2.0], [[0.0, 1.0]])
    >>> ratio.tolist(), pessimistic.tolist()
    ([[1.0, 1.0]], [[0.0, 2.0]])
    """
    raise NotImplementedError("masked_token_ppo_terms is not implemented yet: replace this line with your code")


def masked_token_ppo_objective(
    new_log_probs, old_log_probs, advantages, mask, clip_epsilon=0.2, reduction="token_mean"
):
    """Reduce the pessimistic token terms to one objective to maximise (not a loss).

    Reductions of the pessimistic terms ``P`` over the response tokens:

    - ``"token_mean"``: sum of ``P`` over all response tokens / their count;
    - ``"sequence_mean"``: mean of ``P`` over each row's response tokens, then the
      mean over all ``B`` rows (a row without response tokens contributes 0 and
      still counts);
    - ``"sequence_sum_mean"``: sum of ``P`` over each row, then the mean over ``B``.

    An all-zero mask gives 0.0.

    Parameters
    ----------
    new_log_probs, old_log_probs, advantages, mask, clip_epsilon
        As :func:`masked_token_ppo_terms`.
    reduction : str, optional
        One of ``"token_mean"``, ``"sequence_mean"``, ``"sequence_sum_mean"``.

    Returns
    -------
    float

    Raises
    ------
    ValueError
        For an unknown reduction or inputs that :func:`masked_token_ppo_terms` rejects.

    Notes
    -----
    Course rule, beyond the module's own code -- -inf and nan at masked positions: they
    change nothing, so ignore masked positions (``np.where``) rather than multiplying by
    the mask (``0 * -inf`` is nan; the module's own ``sequence_log_probability``
    multiplies, and its lab's masked positions hold finite values only).
    Course rules -- clip_epsilon in (0, 1), as :func:`masked_token_ppo_terms`; rows without
    response tokens: under ``sequence_mean`` such a row contributes 0 and still counts, and a
    batch without any response token gives 0.0 (the module's lab names the three reductions
    but not what they do there).

    Examples
    --------
    >>> masked_token_ppo_objective([[0.0, 0.0]], [[0.0, 0.0]], [3.0], [[1.0, 1.0]],
    ...                            reduction="sequence_sum_mean")
    6.0
    """
    raise NotImplementedError("masked_token_ppo_objective is not implemented yet: replace this line with your code")


def sequence_log_probability_ratio(new_log_probs, old_log_probs, mask):
    """Exact log-ratio of whole responses: the masked sum of token log-ratios.

    Not length-normalised. Masked positions are ignored entirely.

    Parameters
    ----------
    new_log_probs, old_log_probs, mask : array_like, shape (B, L)

    Returns
    -------
    numpy.ndarray, shape (B,)

    Raises
    ------
    ValueError
        If the three shapes differ or are not 2-D.

    Notes
    -----
    Course rule, beyond the module's own code -- -inf and nan at masked positions: they
    change nothing, so ignore masked positions (``np.where``) rather than multiplying by
    the mask (``0 * -inf`` is nan; the module's own ``sequence_log_probability``
    multiplies, and its lab's masked positions hold finite values only).

    Examples
    --------
    >>> sequence_log_probability_ratio([[-1.0, -1.0]], [[-2.0, -9.0]], [[1.0, 0.0]]).tolist()
    [1.0]
    """
    raise NotImplementedError("sequence_log_probability_ratio is not implemented yet: replace this line with your code")


def sequence_probability_ratio(new_log_probs, old_log_probs, mask):
    """Exact probability ratio of whole responses: ``exp`` of the sequence log-ratio.

    It equals the product of the token ratios over the response tokens.

    Parameters
    ----------
    new_log_probs, old_log_probs, mask : array_like, shape (B, L)

    Returns
    -------
    numpy.ndarray, shape (B,)

    Raises
    ------
    ValueError
        As :func:`sequence_log_probability_ratio`.

    Notes
    -----
    Course rule, beyond the module's own code -- -inf and nan at masked positions: they
    change nothing, so ignore masked positions (``np.where``) rather than multiplying by
    the mask (``0 * -inf`` is nan; the module's own ``sequence_log_probability``
    multiplies, and its lab's masked positions hold finite values only).

    Examples
    --------
    >>> sequence_probability_ratio([[0.0]], [[0.0]], [[1.0]]).tolist()
    [1.0]
    """
    raise NotImplementedError("sequence_probability_ratio is not implemented yet: replace this line with your code")
