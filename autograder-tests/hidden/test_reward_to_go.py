"""Hidden tests of reward_to_go: worked examples, misconception probes, properties, validation."""

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

WRONG = "differs from G_t = r_t + gamma * G_{t+1} on these rewards"


@pytest.mark.weight(3)
@pytest.mark.parametrize("case", example_cases("reward_to_go"))
def test_worked_example(impl, case):
    expect_example(case, impl.reward_to_go(**case.args))


# -- misconception probes: each input makes one mistake show -------------------------------
def probe(impl, reference, rewards, gamma, message):
    rewards = np.asarray(rewards, dtype=float)
    expect_close(impl.reward_to_go(rewards, gamma), reference.reward_to_go(rewards, gamma), message)


@pytest.mark.weight(2)
def test_accumulates_future_rewards(impl, reference):
    probe(
        impl,
        reference,
        [2.0, 0.0, -1.0, 4.0],
        0.8,
        "G_t must collect the rewards from step t to the END of the episode (accumulate backwards from the "
        "last step), not the rewards before step t",
    )


@pytest.mark.weight(2)
def test_includes_the_current_reward(impl, reference):
    probe(
        impl,
        reference,
        [2.0, -1.0, 4.0, 0.5],
        1.0,
        "G_t must include the reward of step t itself (G_t = r_t + gamma * G_{t+1}); the last step's return "
        "is its own reward",
    )


@pytest.mark.weight(2)
def test_current_reward_is_not_discounted(impl, reference):
    probe(
        impl,
        reference,
        [1.0, 0.0, 0.0, 2.0],
        0.5,
        "the discount exponent is off by one: r_t enters G_t undiscounted (gamma^0 = 1) and the reward k "
        "steps later with gamma^k",
    )


def test_gamma_zero_gives_immediate_rewards(impl, reference):
    rewards = np.array([3.0, -1.0, 0.5, 2.0])
    # The pair (returning the rewards is not enough) is asked first: the same rewards at two gammas are the
    # student's own evidence of an ignored gamma, whichever half fails.
    at_half = impl.reward_to_go(rewards, 0.5)
    probe(
        impl,
        reference,
        rewards,
        0.0,
        "with gamma = 0 the return is the immediate reward, G_t = r_t (beware of 0 ** 0 and of negative "
        "powers of 0 in a vectorised formula)",
    )
    expect_right(at_half, reference.reward_to_go(rewards, 0.5), WRONG)


def test_gamma_one_is_allowed(impl, reference):
    rewards = np.array([1.0, -2.0, 0.5])
    message = "gamma = 1 is allowed (undiscounted returns: G_t sums the rewards from t to the end)"
    got = expect_success(impl.reward_to_go, rewards, 1.0, message=message)
    expect_close(got, reference.reward_to_go(rewards, 1.0), message)


@pytest.mark.contract
def test_empty_episode(impl):
    message = "an empty episode (T = 0) must give an empty array"
    got = expect_success(impl.reward_to_go, np.zeros(0), 0.9, message=message)
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
@example(case=(np.array([2.5]), 0.0))
@example(case=(np.array([1.0, -2.0, 3.0, 0.5]), 1.0))
def test_matches_reference_on_random_inputs(impl, reference, case):
    rewards, gamma = case
    expect_close(
        impl.reward_to_go(rewards, gamma),
        reference.reward_to_go(rewards, gamma),
        "differs from G_t = r_t + gamma * G_{t+1} on random episodes (lengths 0 to 30, gamma 0, 1 and between)",
    )


@pytest.mark.contract
def test_accepts_lists(impl):
    # Compared with the submission's own answer for the float array: only the input type is tested here.
    message = "plain Python lists must be accepted like arrays"
    got = expect_success(impl.reward_to_go, [1.5, -0.5, 2.0], 0.9, message=message)
    expect_close(got, impl.reward_to_go(np.array([1.5, -0.5, 2.0]), 0.9), message)
    message = (
        "plain Python lists must be accepted like arrays, integer rewards included: discounted returns "
        "are fractional, so compute them in a float array"
    )
    got = expect_success(impl.reward_to_go, [1, 0, 3], 0.5, message=message)
    expect_close(got, impl.reward_to_go(np.array([1.0, 0.0, 3.0]), 0.5), message)


@pytest.mark.contract
def test_does_not_modify_inputs(impl):
    expect_inputs_unchanged(
        impl.reward_to_go,
        np.array([1.0, 2.0, -1.0, 0.5]),
        0.9,
        message="reward_to_go modifies the caller's rewards in place (accumulating into "
        "the input array); write the returns into a new array",
    )


# -- validation ----------------------------------------------------------------------------
@pytest.mark.contract
@pytest.mark.parametrize("gamma", [1.5, -0.1], ids=["above_1", "negative"])
def test_rejects_gamma_outside_unit_interval(impl, gamma):
    expect_raises(
        ValueError, impl.reward_to_go, np.array([1.0, 2.0]), gamma, message="gamma outside [0, 1] must raise ValueError"
    )


@pytest.mark.contract
def test_rejects_two_dimensional_rewards(impl):
    expect_raises(
        ValueError,
        impl.reward_to_go,
        np.ones((2, 3)),
        0.9,
        message="2-D rewards must raise ValueError (one episode at a time)",
    )
