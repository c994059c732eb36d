"""Hidden tests of discounted_score_weights: worked examples, misconception probes, properties, validation."""

import numpy as np
import pytest
from hypothesis import example
from hypothesis import strategies as st

from grader.testing import (
    example_cases,
    expect_close,
    expect_example,
    expect_inputs_unchanged,
    expect_raises,
    expect_right,
    expect_success,
    given,
)


@pytest.mark.weight(3)
@pytest.mark.parametrize("case", example_cases("discounted_score_weights"))
def test_worked_example(impl, case):
    expect_example(case, impl.discounted_score_weights(**case.args))


# -- misconception probes: each input makes one mistake show -------------------------------
def probe(impl, reference, rewards, gamma, message):
    rewards = np.asarray(rewards, dtype=float)
    expect_close(
        impl.discounted_score_weights(rewards, gamma), reference.discounted_score_weights(rewards, gamma), message
    )


@pytest.mark.weight(2)
def test_applies_the_outer_discount(impl, reference):
    probe(
        impl,
        reference,
        [1.0, -2.0, 3.0, 0.5],
        0.5,
        "the outer discount gamma^t is missing: the literal objective E[sum_t gamma^t r_t] weights the score at "
        "step t by gamma^t * G_t, not by G_t alone",
    )


def test_outer_discount_starts_at_one(impl, reference):
    probe(
        impl,
        reference,
        [4.0, 1.0, 0.0],
        0.8,
        "the outer discount is off by one: step t is weighted by gamma^t * G_t, so the first step gets "
        "gamma^0 = 1 (exponent t, not t + 1)",
    )


def test_each_reward_is_discounted_once(impl, reference):
    probe(
        impl,
        reference,
        [0.0, 0.0, 2.0, 1.0],
        0.5,
        "the rewards are discounted twice: gamma^t * G_t = sum over k >= t of gamma^k r_k, each reward carries "
        "gamma to the power of its own time step exactly once",
    )


@pytest.mark.weight(2)
def test_weights_use_rewards_from_step_t_on(impl, reference):
    probe(
        impl,
        reference,
        [5.0, -1.0, 0.0, 2.0],
        0.9,
        "every step is weighted by the discounted return of the whole episode: the score at step t only takes "
        "the rewards from step t on (earlier rewards cannot depend on the action at step t)",
    )


def test_gamma_zero_keeps_only_the_first_reward(impl, reference):
    rewards = np.array([3.0, -1.0, 2.0])
    # The same rewards at another gamma, asked first: the pair is the student's own evidence of an ignored
    # gamma, whichever half fails.
    at_half = impl.discounted_score_weights(rewards, 0.5)
    probe(
        impl,
        reference,
        rewards,
        0.0,
        "with gamma = 0 only the first reward counts: the weight is r_0 at step 0 and zero afterwards "
        "(gamma^0 must be 1 even when gamma = 0)",
    )
    expect_right(
        at_half, reference.discounted_score_weights(rewards, 0.5), "differs from gamma^t * G_t on these rewards"
    )


@pytest.mark.contract
def test_empty_episode(impl):
    message = "an empty episode (T = 0) must give an empty array"
    got = expect_success(impl.discounted_score_weights, np.zeros(0), 0.9, message=message)
    expect_close(got, np.zeros(0), message)


# -- properties against the reference ----------------------------------------------------
@st.composite
def episodes(draw):
    t = draw(st.integers(min_value=0, max_value=30))
    rewards = np.array(
        draw(st.lists(st.floats(min_value=-10, max_value=10, allow_nan=False), min_size=t, max_size=t)), dtype=float
    )
    gamma = draw(st.one_of(st.sampled_from([0.0, 1.0, 0.5, 0.99]), st.floats(min_value=0.0, max_value=1.0)))
    return rewards, gamma


@pytest.mark.weight(2)
@given(episodes())
@example(case=(np.zeros(0), 0.9))
@example(case=(np.array([-1.5]), 0.0))
@example(case=(np.array([1.0, -2.0, 3.0, 0.5]), 1.0))
def test_matches_reference_on_random_inputs(impl, reference, case):
    rewards, gamma = case
    expect_close(
        impl.discounted_score_weights(rewards, gamma),
        reference.discounted_score_weights(rewards, gamma),
        "differs from gamma^t * G_t on random episodes (lengths 0 to 30, gamma 0, 1 and between)",
    )


@pytest.mark.contract
def test_accepts_lists(impl):
    # Compared with the submission's own answer for the float array: only the input type is tested here.
    message = "plain Python lists must be accepted like arrays"
    got = expect_success(impl.discounted_score_weights, [1.5, -0.5, 2.0], 0.9, message=message)
    expect_close(got, impl.discounted_score_weights(np.array([1.5, -0.5, 2.0]), 0.9), message)
    message = (
        "plain Python lists must be accepted like arrays, integer rewards included: the weights are "
        "fractional, so compute them in a float array"
    )
    got = expect_success(impl.discounted_score_weights, [2, 1, 3], 0.5, message=message)
    expect_close(got, impl.discounted_score_weights(np.array([2.0, 1.0, 3.0]), 0.5), message)


@pytest.mark.contract
def test_does_not_modify_inputs(impl):
    expect_inputs_unchanged(
        impl.discounted_score_weights,
        np.array([1.0, 2.0, -1.0, 0.5]),
        0.9,
        message="discounted_score_weights modifies the caller's rewards in place; write the weights into a new array",
    )


# -- validation ----------------------------------------------------------------------------
@pytest.mark.contract
@pytest.mark.parametrize("gamma", [1.5, -0.1], ids=["above_1", "negative"])
def test_rejects_gamma_outside_unit_interval(impl, gamma):
    expect_raises(
        ValueError,
        impl.discounted_score_weights,
        np.array([1.0, 2.0]),
        gamma,
        message="gamma outside [0, 1] must raise ValueError",
    )


@pytest.mark.contract
def test_rejects_two_dimensional_rewards(impl):
    expect_raises(
        ValueError,
        impl.discounted_score_weights,
        np.ones((2, 3)),
        0.9,
        message="2-D rewards must raise ValueError (one episode at a time)",
    )
