"""Hidden tests of optimal_constant_baseline: worked examples, misconception probes, properties, validation."""

import numpy as np
import pytest
from hypothesis import example
from hypothesis import strategies as st

from grader.testing import (
    example_cases,
    expect,
    expect_close,
    expect_example,
    expect_float,
    expect_inputs_unchanged,
    expect_raises,
    expect_success,
    given,
)

SINGLE_NUMBER = "b* is a single number for the whole state, not one value per action"


def expect_baseline(got, expected, message):
    """``got`` is one number matching ``expected``."""
    expect_close(expect_float(got, SINGLE_NUMBER), expected, message)


@pytest.mark.weight(3)
@pytest.mark.parametrize("case", example_cases("optimal_constant_baseline"))
def test_worked_example(impl, case):
    expect_example(case, expect_float(impl.optimal_constant_baseline(**case.args), SINGLE_NUMBER))


# -- misconception probes: each input makes one mistake show -------------------------------
def probe(impl, reference, logits, action_values, message):
    logits, action_values = np.asarray(logits, dtype=float), np.asarray(action_values, dtype=float)
    expect_baseline(
        impl.optimal_constant_baseline(logits, action_values),
        reference.optimal_constant_baseline(logits, action_values),
        message,
    )


@pytest.mark.weight(3)
def test_is_not_the_state_value(impl, reference):
    probe(
        impl,
        reference,
        [1.0, 0.0, -1.0],
        [0.0, 2.0, 10.0],
        "returns the state value V = sum_a pi(a) Q(a): b* also weights each action by the squared norm "
        "|g(a)|^2 of its score vector, which is largest for rare actions",
    )


@pytest.mark.weight(2)
def test_weights_include_the_policy_probability(impl, reference):
    probe(
        impl,
        reference,
        [2.0, 0.0, -0.5, 0.5],
        [1.0, -3.0, 4.0, 0.0],
        "weights each action by |g(a)|^2 alone: the variance is an expectation over a ~ pi, so the weight of "
        "action a is pi(a) * |g(a)|^2",
    )


def test_weights_use_the_squared_norm(impl, reference):
    probe(
        impl, reference, [1.5, -1.0], [2.0, -1.0], "weights with the norm |g(a)| instead of the squared norm |g(a)|^2"
    )


@pytest.mark.weight(2)
def test_squared_norm_covers_every_component(impl, reference):
    # With two actions |g(a)|^2 = 2 (1 - pi(a))^2, so this mistake only shows with three or more.
    probe(
        impl,
        reference,
        [0.0, 1.2, -0.8, 0.3],
        [5.0, 0.0, -2.0, 1.0],
        "the squared norm must include every component of g(a) = onehot(a) - pi: |g(a)|^2 = (1 - pi(a))^2 + "
        "the sum over k != a of pi(k)^2, not (1 - pi(a))^2 alone",
    )


def test_equal_action_values_give_that_value(impl):
    logits = np.array([2.0, -1.0, 0.5, 0.0])
    expect_baseline(
        impl.optimal_constant_baseline(logits, np.full(4, 3.5)),
        3.5,
        "b* is a weighted average of the action values: divide by the sum of the weights "
        "pi(a) * |g(a)|^2 (equal action values give that value)",
    )


def test_huge_logits_do_not_overflow(impl, reference):
    logits = np.array([900.0, 901.5, 899.0])
    values = np.array([1.0, 2.0, 4.0])
    got = expect_float(impl.optimal_constant_baseline(logits, values), SINGLE_NUMBER)
    expect(
        np.isfinite(got),
        "overflows for large logits (NaN or inf): compute the policy with the max-shifted "
        "softmax, e.g. by reusing stable_softmax",
    )
    expect_baseline(
        got,
        reference.optimal_constant_baseline(logits, values),
        "wrong for large logits: the policy depends only on differences between logits",
    )


# -- properties ----------------------------------------------------------------------------
@st.composite
def policies(draw):
    k = draw(st.integers(min_value=2, max_value=8))
    floats = st.floats(min_value=-4, max_value=4, allow_nan=False)
    # Moderate logit spreads: for a nearly deterministic policy b* is ill-conditioned and correct formulas
    # for |g(a)|^2 disagree in the last digits that matter.
    logits = np.array(draw(st.lists(floats, min_size=k, max_size=k))) + draw(st.sampled_from([0.0, 0.0, 800.0, -800.0]))
    values = np.array(draw(st.lists(st.floats(min_value=-10, max_value=10, allow_nan=False), min_size=k, max_size=k)))
    return logits, values


@pytest.mark.weight(2)
@given(policies())
@example(case=(np.array([0.0, 0.0]), np.array([-1.0, 5.0])))
@example(case=(np.array([3.0, -3.0, 0.0, 1.0, 2.0]), np.array([0.5, 9.0, -4.0, 2.0, 1.0])))
def test_matches_reference_on_random_inputs(impl, reference, case):
    logits, values = case
    expect_baseline(
        impl.optimal_constant_baseline(logits, values),
        reference.optimal_constant_baseline(logits, values),
        "differs from b* = sum_a pi(a)|g(a)|^2 Q(a) / sum_a pi(a)|g(a)|^2 on random policies (two to "
        "eight actions, some with large logits)",
    )


@given(policies())
@example(case=(np.array([0.0, 0.0]), np.array([6.0, 8.0])))
def test_lies_between_the_action_values(impl, case):
    logits, values = case
    got = expect_float(impl.optimal_constant_baseline(logits, values), SINGLE_NUMBER)
    expect(
        values.min() - 1e-9 <= got <= values.max() + 1e-9,
        "b* must lie between the smallest and the largest action value: it is a weighted average of Q(a) "
        "with non-negative weights that sum to one after normalising",
    )


@pytest.mark.contract
def test_accepts_lists(impl):
    # Compared with the submission's own answer for float arrays: only the input type is tested here.
    message = "plain Python lists must be accepted like arrays (integer action values included)"
    got = expect_success(impl.optimal_constant_baseline, [0.5, -1.0, 1.0], [1, 3, 2], message=message)
    expect_close(
        expect_float(got, SINGLE_NUMBER),
        impl.optimal_constant_baseline(np.array([0.5, -1.0, 1.0]), np.array([1.0, 3.0, 2.0])),
        message,
    )


@pytest.mark.contract
def test_does_not_modify_inputs(impl):
    expect_inputs_unchanged(
        impl.optimal_constant_baseline,
        np.array([0.3, -0.2, 1.0]),
        np.array([2.0, -1.0, 0.5]),
        message="optimal_constant_baseline modifies the caller's arrays in place; work on copies",
    )


# -- validation ----------------------------------------------------------------------------
INVALID = {
    "single_action": (np.array([0.7]), np.array([2.0])),
    "values_broadcastable_but_misaligned": (np.array([0.1, 0.2, 0.3]), np.array([1.0])),
    "values_of_another_length": (np.array([0.1, 0.2, 0.3]), np.array([1.0, 2.0])),
    "two_dimensional": (np.zeros((2, 3)), np.ones((2, 3))),
}


@pytest.mark.contract
@pytest.mark.parametrize("name", list(INVALID))
def test_rejects_invalid_inputs(impl, name):
    logits, values = INVALID[name]
    expect_raises(
        ValueError,
        impl.optimal_constant_baseline,
        logits,
        values,
        message="inputs that are not aligned vectors of at least two actions (a single action, "
        "action values of another length, 2-D arrays) must raise ValueError",
    )
