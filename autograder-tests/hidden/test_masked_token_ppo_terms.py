"""Hidden tests of masked_token_ppo_terms: worked example, misconception probes, properties, validation."""

import numpy as np
import pytest
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays

from grader.testing import (
    MASK_INVERTED,
    Misconception,
    example_cases,
    expect,
    expect_close,
    expect_default,
    expect_example,
    expect_inputs_unchanged,
    expect_masked_ignored,
    expect_raises,
    expect_right,
    expect_shape,
    given,
    poison_masked,
)

NAMES = ("ratio", "unclipped", "clipped", "pessimistic")
WRONG = (
    "differs from the definition on these inputs (exp(new - old), r*A, clip(r)*A and their minimum at response "
    "tokens; ratio 1 and zero terms at masked positions)"
)


def four_arrays(result, shape):
    """The four returned arrays, each checked to have the contract's shape."""
    expect(
        isinstance(result, (tuple, list)) and len(result) == 4,
        "masked_token_ppo_terms must return four arrays: (ratio, unclipped, clipped, pessimistic)",
    )
    return [
        expect_shape(array, shape, f"{name} must have the shape of the log-probs", what=name)
        for name, array in zip(NAMES, result)
    ]


def expect_terms(got, want, message, only=NAMES, compare=expect_close):
    """Compare the named arrays of two (ratio, unclipped, clipped, pessimistic) tuples."""
    got = four_arrays(got, np.shape(want[0]))
    for name, g, w in zip(NAMES, got, want):
        if name in only:
            compare(g, w, f"{message} [{name}]", what=name)


def terms_args(new, old, advantages, mask, clip_epsilon=0.2):
    return dict(
        new_log_probs=np.asarray(new, dtype=float),
        old_log_probs=np.asarray(old, dtype=float),
        advantages=np.asarray(advantages, dtype=float),
        mask=np.asarray(mask, dtype=float),
        clip_epsilon=clip_epsilon,
    )


@pytest.mark.weight(3)
@pytest.mark.parametrize("case", example_cases("masked_token_ppo_terms"))
def test_worked_example(impl, case):
    got = four_arrays(impl.masked_token_ppo_terms(**case.args), np.shape(case.expected["ratio"]))
    expect_example(case, dict(zip(NAMES, got)))


# -- misconception probes ------------------------------------------------------------------
# Ordinary (finite) values sit at masked positions unless a probe is about non-finite ones.
MASK = [[0.0, 1.0, 1.0, 0.0], [1.0, 1.0, 0.0, 0.0]]
NEW = [[-9.0, -0.5, -1.0, 3.0], [-0.3, -0.2, -7.0, -4.0]]
OLD = [[-1.0, -0.7, -0.8, -2.0], [-0.4, -0.1, -0.5, 1.0]]


@pytest.mark.weight(2)
def test_mask_of_ones_counts_every_position(impl, reference):
    args = terms_args(NEW, OLD, [1.0, -1.0], np.ones((2, 4)))
    got = impl.masked_token_ppo_terms(**args)
    expect(not np.allclose(four_arrays(got, (2, 4))[1], 0.0), MASK_INVERTED)  # no advantage here is 0
    expect_terms(got, reference.masked_token_ppo_terms(**args), WRONG, compare=expect_right)


@pytest.mark.weight(2)
def test_masked_ratio_is_one(impl, reference):
    args = terms_args(NEW, OLD, [1.0, -1.0], MASK)
    got = impl.masked_token_ppo_terms(**args)
    ratio = four_arrays(got, (2, 4))[0]
    masked = ratio[args["mask"] == 0]
    if np.allclose(masked, 0.0):
        message = (
            "masked ratios are 0 instead of 1: at a masked position the ratio is the multiplicative "
            "identity 1, so products of ratios see only response tokens"
        )
    else:
        message = (
            "the ratio at masked positions must be 1 (the multiplicative identity), not exp(new - old) of "
            "the values stored there"
        )
    expect(np.allclose(masked, 1.0), message)
    expect_terms(
        got, reference.masked_token_ppo_terms(**args), WRONG, only=("ratio",), compare=expect_right
    )  # the pair: not all ones


@pytest.mark.weight(2)
def test_masked_terms_are_zero(impl, reference):
    args = terms_args(NEW, OLD, [1.0, -1.0], MASK)
    got = impl.masked_token_ppo_terms(**args)
    masked = args["mask"] == 0
    expect(
        all(np.allclose(term[masked], 0.0) for term in four_arrays(got, (2, 4))[1:]),
        "masked positions carry nonzero PPO terms: unclipped, clipped and pessimistic must be 0 wherever the "
        "mask is 0 (prompt and padding are not actions)",
    )
    expect_terms(
        got, reference.masked_token_ppo_terms(**args), WRONG, only=NAMES[1:], compare=expect_right
    )  # the pair: not all zeros


@pytest.mark.weight(2)
@pytest.mark.course_rule("masked_values_ignored")
def test_nonfinite_masked_log_probs_do_not_leak(impl, reference):
    mask = np.array(MASK)
    clean = terms_args(NEW, OLD, [1.0, -1.0], mask)
    # Masked positions: both -inf, nan in one of them, a -inf old log-prob (an infinite ratio).
    poisoned = terms_args(*poison_masked(NEW, OLD, mask), [1.0, -1.0], mask)
    expect_masked_ignored(
        impl.masked_token_ppo_terms(**poisoned),
        impl.masked_token_ppo_terms(**clean),
        reference.masked_token_ppo_terms(**clean),
        WRONG,
        compare=expect_terms,
    )


@pytest.mark.weight(2)
def test_ratio_is_exp_of_the_log_prob_difference(impl, reference):
    args = terms_args([[-0.5, -2.0], [-1.1, -0.3]], [[-1.0, -1.6], [-1.2, -0.2]], [1.0, -1.0], np.ones((2, 2)))
    expect_terms(
        impl.masked_token_ppo_terms(**args),
        reference.masked_token_ppo_terms(**args),
        "the ratio must be exp(new_log_probs - old_log_probs), a ratio of probabilities: not a quotient or "
        "difference of the log-probabilities themselves",
        only=("ratio",),
    )


def test_per_token_advantages(impl, reference):
    # Ratios of 1 and no masked position: each term is just the advantage at its position.
    log_probs = [[-0.5, -1.0, -0.2], [-0.9, -0.1, -2.0]]
    args = terms_args(log_probs, log_probs, [[1.0, -2.0, 0.5], [-0.3, 0.8, 1.5]], np.ones((2, 3)))
    message = (
        "per-token advantages of shape [B, L] must be accepted and used position by position "
        "(advantages may be [B] or [B, L])"
    )
    try:
        got = impl.masked_token_ppo_terms(**args)
    except ValueError:
        raise Misconception(message) from None
    want = reference.masked_token_ppo_terms(**args)
    expect_terms(got, want, message, only=("unclipped",))  # r * A with r = 1: the advantages themselves
    expect_terms(got, want, WRONG, only=("clipped", "pessimistic"), compare=expect_right)


def test_clip_epsilon_is_used(impl, reference):
    # Ratios about 1.15 and 0.87: inside [0.8, 1.2], outside [0.9, 1.1].
    args = terms_args(
        [[0.14, -0.14], [0.14, -0.14]], [[0.0, 0.0], [0.0, 0.0]], [2.0, -1.0], np.ones((2, 2)), clip_epsilon=0.1
    )
    expect_terms(
        impl.masked_token_ppo_terms(**args),
        reference.masked_token_ppo_terms(**args),
        "clip_epsilon is ignored: the clip interval is [1 - clip_epsilon, 1 + clip_epsilon]",
        only=("clipped",),
    )


@pytest.mark.weight(2)
def test_pessimistic_is_the_minimum_of_the_terms(impl, reference):
    # Negative advantages with ratios far outside the clip interval.
    args = terms_args([[-0.2, -1.6], [-1.2, 0.1]], [[-1.0, -0.9], [-0.2, -0.8]], [-1.5, -0.5], np.ones((2, 2)))
    expect_terms(
        impl.masked_token_ppo_terms(**args),
        reference.masked_token_ppo_terms(**args),
        "the pessimistic term must be the elementwise minimum of r*A and clip(r)*A; the minimum of the "
        "ratios times A is wrong for negative advantages",
        only=("pessimistic",),
    )


def test_ratio_is_new_over_old(impl, reference):
    args = terms_args([[-0.2, -1.6], [-1.2, -0.1]], [[-1.0, -0.9], [-0.2, -0.8]], [1.0, 1.0], np.ones((2, 2)))
    expect_terms(
        impl.masked_token_ppo_terms(**args),
        reference.masked_token_ppo_terms(**args),
        "the ratio is inverted: it must be exp(new_log_probs - old_log_probs) = pi_new / pi_old",
        only=("ratio",),
    )


# -- properties against the reference ----------------------------------------------------
@st.composite
def terms_cases(draw):
    batch = draw(st.integers(min_value=1, max_value=4))
    length = draw(st.integers(min_value=1, max_value=6))
    shape = (batch, length)
    log_probs = st.floats(min_value=-4, max_value=0, allow_nan=False)
    new = draw(arrays(float, shape, elements=log_probs))
    old = draw(arrays(float, shape, elements=log_probs))
    mask = draw(arrays(float, shape, elements=st.sampled_from([0.0, 1.0])))
    per_token = draw(st.booleans())
    advantages = draw(
        arrays(float, shape if per_token else (batch,), elements=st.floats(min_value=-3, max_value=3, allow_nan=False))
    )
    # Finite extremes only, as the lab's example has them: -inf and nan are the course rule's own test.
    poison = draw(st.sampled_from([None, -1e6, 40.0]))
    if poison is not None:
        new = np.where(mask != 0, new, poison)
    return terms_args(new, old, advantages, mask, clip_epsilon=draw(st.sampled_from([0.1, 0.2, 0.3, 0.5])))


@pytest.mark.weight(2)
@given(terms_cases())
def test_matches_reference_on_random_inputs(impl, reference, case):
    expect_terms(
        impl.masked_token_ppo_terms(**case),
        reference.masked_token_ppo_terms(**case),
        "differs from the definition on random inputs (advantages [B] or [B, L], empty rows, several "
        "clip_epsilon, extreme values at masked positions)",
    )


@pytest.mark.contract
def test_accepts_lists(impl):
    # Compared with the submission's own answer for arrays: only the input type is tested here.
    lists = ([[-0.5, -1.0], [-0.2, -0.4]], [[-0.6, -0.8], [-0.3, -0.4]], [1.0, -0.5], [[1, 1], [0, 1]])
    expect_terms(
        impl.masked_token_ppo_terms(*lists),
        impl.masked_token_ppo_terms(**terms_args(*lists)),
        "plain Python lists must be accepted like arrays",
    )


@pytest.mark.contract
def test_does_not_modify_inputs(impl):
    args = terms_args(NEW, OLD, [1.0, -1.0], MASK)
    expect_inputs_unchanged(impl.masked_token_ppo_terms, **args)


# -- validation ----------------------------------------------------------------------------
@pytest.mark.contract
@pytest.mark.parametrize(
    "change",
    [
        dict(old_log_probs=np.zeros((2, 4))),
        dict(mask=np.ones((1, 3))),
        dict(advantages=np.ones(3)),
        dict(advantages=np.ones((2, 1))),
        dict(new_log_probs=np.zeros(3), old_log_probs=np.zeros(3), mask=np.ones(3), advantages=np.ones(3)),
    ],
    ids=["old_longer", "mask_one_row", "advantages_per_column", "advantages_column", "one_dimensional"],
)
def test_rejects_misshaped_inputs(impl, change):
    args = dict(terms_args(np.zeros((2, 3)), np.zeros((2, 3)), [1.0, 2.0], np.ones((2, 3))), **change)
    expect_raises(
        ValueError,
        impl.masked_token_ppo_terms,
        **args,
        message="new_log_probs, old_log_probs and mask must share one [B, L] shape and advantages be "
        "[B] or [B, L]; anything else must raise ValueError (no silent broadcasting)",
    )


@pytest.mark.contract
@pytest.mark.course_rule("clip_epsilon_range")
@pytest.mark.parametrize("clip_epsilon", [0.0, 1.0, -0.2, 1.5])
def test_rejects_clip_epsilon_outside_the_unit_interval(impl, clip_epsilon):
    args = terms_args(np.zeros((2, 3)), np.zeros((2, 3)), [1.0, 2.0], np.ones((2, 3)), clip_epsilon=clip_epsilon)
    expect_raises(
        ValueError, impl.masked_token_ppo_terms, **args, message="clip_epsilon outside (0, 1) must raise ValueError"
    )


# -- defaults: a call without clip_epsilon uses the docstring's value ------------------------
@pytest.mark.contract
def test_default_clip_epsilon(impl, reference):
    # Ratios between 1.1 and 1.2 (and 0.8 and 0.9) are clipped with epsilon 0.1, not with 0.2.
    args = terms_args(np.log([[1.15, 0.85, 1.3]]), np.zeros((1, 3)), [1.0], [[1.0, 1.0, 1.0]])
    given = impl.masked_token_ppo_terms(**args)
    del args["clip_epsilon"]
    got = impl.masked_token_ppo_terms(**args)

    def compare(a, b, message):
        expect_terms(a, b, message, only=("clipped", "pessimistic"))

    expect_default(
        got, given, reference.masked_token_ppo_terms(**args), "clip_epsilon", 0.2, "the interval [0.8, 1.2]", compare
    )
