"""Hidden tests of grad_log_softmax: worked examples, misconception probes, properties, validation."""

import numpy as np
import pytest
from hypothesis import example
from hypothesis import strategies as st

from grader.testing import (
    example_cases,
    expect,
    expect_close,
    expect_example,
    expect_inputs_unchanged,
    expect_raises,
    expect_right,
    expect_shape,
    expect_success,
    given,
)

SHAPE = "the score has one component per logit"
WRONG = "differs from the score onehot(action) - softmax(logits) on these logits"


@pytest.mark.weight(3)
@pytest.mark.parametrize("case", example_cases("grad_log_softmax"))
def test_worked_example(impl, case):
    expect_example(case, impl.grad_log_softmax(**case.args))


# -- misconception probes: each checks the one part of the score a mistake gets wrong ------
PROBE_LOGITS = np.array([0.4, -1.1, 1.3, 0.2])
PROBE_ACTION = 1  # a fairly rare action: its score is large


@pytest.mark.weight(2)
def test_sign_of_the_score(impl):
    got = expect_shape(impl.grad_log_softmax(PROBE_LOGITS, PROBE_ACTION), (4,), SHAPE)
    others = np.delete(got, PROBE_ACTION)
    expect(
        got[PROBE_ACTION] > 0 and np.all(others <= 0),
        "the score has the wrong sign: raising the sampled action's logit must increase log pi(action), "
        "so the score is onehot(action) - softmax(logits), not softmax(logits) - onehot(action)",
    )


@pytest.mark.weight(2)
def test_other_logits_get_minus_their_probability(impl, reference):
    got = expect_shape(impl.grad_log_softmax(PROBE_LOGITS, PROBE_ACTION), (4,), SHAPE)
    p = reference.stable_softmax(PROBE_LOGITS)
    expect_close(
        np.delete(got, PROBE_ACTION),
        -np.delete(p, PROBE_ACTION),
        "the components of the actions not taken must be -pi(k): every logit changes log pi(action) "
        "through the normaliser, not only the sampled action's logit",
        what="those components",
    )


@pytest.mark.weight(2)
def test_sampled_component_is_one_minus_probability(impl, reference):
    got = expect_shape(impl.grad_log_softmax(PROBE_LOGITS, PROBE_ACTION), (4,), SHAPE)
    p = reference.stable_softmax(PROBE_LOGITS)
    expect_close(
        got[PROBE_ACTION],
        1.0 - p[PROBE_ACTION],
        "the sampled action's component must be 1 - pi(action): this is the gradient of log pi, "
        "so there is no extra factor pi(action) (that would be the gradient of pi itself)",
        what="that component",
    )


def test_components_sum_to_zero(impl, reference):
    logits = np.array([-0.5, 2.0, 0.75])
    got = expect_shape(impl.grad_log_softmax(logits, 2), (3,), SHAPE)
    expect(
        abs(np.sum(got)) < 1e-9,
        "the score's components must sum to zero (onehot and softmax both sum to one); the logits of "
        "the other actions get -pi(k), not zero",
    )
    expect_right(got, reference.grad_log_softmax(logits, 2), WRONG)


def test_huge_logits_do_not_overflow(impl, reference):
    logits = np.array([700.0, 712.5, 705.0])
    got = expect_shape(impl.grad_log_softmax(logits, 0), (3,), SHAPE)
    expect(
        np.all(np.isfinite(got)),
        "overflows for large logits (NaN or inf in the score): compute the probabilities with the "
        "max-shifted softmax, e.g. by reusing stable_softmax",
    )
    # Against the submission's own answer for the shifted logits first: is it stability that fails?
    expect_close(
        got,
        impl.grad_log_softmax(logits - 712.5, 0),
        "loses precision for large logits: the score depends only on differences between logits, so "
        "shift by the maximum before exponentiating",
    )
    expect_right(got, reference.grad_log_softmax(logits, 0), WRONG)


# -- properties against the reference ----------------------------------------------------
@st.composite
def logits_and_action(draw):
    k = draw(st.integers(min_value=1, max_value=10))
    logits = np.array(draw(st.lists(st.floats(min_value=-20, max_value=20, allow_nan=False), min_size=k, max_size=k)))
    offset = draw(st.sampled_from([0.0, 0.0, 0.0, 800.0, -800.0]))
    return logits + offset, draw(st.integers(min_value=0, max_value=k - 1))


@pytest.mark.weight(2)
@given(logits_and_action())
@example(case=(np.array([5.0e3]), 0))
@example(case=(np.array([-2.0e3, -2.0e3 + 1.5, -2.0e3 - 1.0]), 2))
def test_matches_reference_on_random_inputs(impl, reference, case):
    logits, action = case
    expect_close(
        impl.grad_log_softmax(logits, action),
        reference.grad_log_softmax(logits, action),
        "differs from onehot(action) - softmax(logits) on random inputs (one to ten actions, some with large logits)",
    )


@pytest.mark.contract
def test_accepts_numpy_integer_action(impl):
    # Sampling with numpy (rng.choice, argmax) gives numpy integers, not Python ints.
    logits = np.array([0.1, 0.9, -0.4])
    message = "a numpy integer action (as returned by rng.choice or argmax) must be accepted like a Python int"
    got = expect_success(impl.grad_log_softmax, logits, np.int64(2), message=message)
    expect_close(got, impl.grad_log_softmax(logits, 2), message)


@pytest.mark.contract
def test_accepts_lists(impl):
    message = "plain Python lists of logits must be accepted like arrays"
    got = expect_success(impl.grad_log_softmax, [1.0, -0.5, 0.25], 0, message=message)
    expect_close(got, impl.grad_log_softmax(np.array([1.0, -0.5, 0.25]), 0), message)


@pytest.mark.contract
def test_does_not_modify_inputs(impl):
    logits = np.array([0.0, -1.5, -0.5, -2.0])
    expect_inputs_unchanged(
        impl.grad_log_softmax,
        logits,
        3,
        message="grad_log_softmax modifies the caller's logits in place; work on a copy",
    )


# -- validation ----------------------------------------------------------------------------
@pytest.mark.contract
@pytest.mark.parametrize("action", [3, -1], ids=["equal_to_K", "negative"])
def test_rejects_action_out_of_range(impl, action):
    expect_raises(
        ValueError,
        impl.grad_log_softmax,
        np.array([0.5, 0.0, -0.5]),
        action,
        message="an action outside [0, K) must raise ValueError (a negative index must not wrap "
        "around to the last action)",
    )


@pytest.mark.contract
@pytest.mark.course_rule("integer_action")
def test_rejects_non_integer_action(impl):
    expect_raises(
        ValueError,
        impl.grad_log_softmax,
        np.array([0.5, 0.0, -0.5]),
        1.5,
        message="a non-integer action (1.5) must raise ValueError, not be rounded or truncated",
    )


@pytest.mark.contract
@pytest.mark.parametrize("logits", [np.zeros(0), np.zeros((2, 3))], ids=["empty", "two_dimensional"])
def test_rejects_invalid_logits(impl, logits):
    expect_raises(
        ValueError,
        impl.grad_log_softmax,
        logits,
        0,
        message="logits that are not a non-empty one-dimensional array must raise ValueError",
    )
