"""Hidden tests of reward_to_go: worked examples, misconception probes, properties, validation."""

import numpy as np
import pytest
from hypothesis import example
from hypothesis import strategies as st

from grader.testing import (
    expect_close,
    expect_close_naming_mistakes,
    expect_inputs_unchanged,
    expect_raises,
    expect_success,
    given,
    worked_examples,
)

EXAMPLES = worked_examples("reward_to_go")


FORWARD = ("G_t must collect the rewards from step t to the END of the episode (accumulate backwards from the "
           "last step), not the rewards before step t")
EXCLUDES_CURRENT = ("G_t must include the reward of step t itself (G_t = r_t + gamma * G_{t+1}); the last step's "
                    "return is its own reward")
DISCOUNTS_CURRENT = ("the discount exponent is off by one: r_t enters G_t undiscounted (gamma^0 = 1) and the "
                     "reward k steps later with gamma^k")


def known_mistakes(rewards, gamma):
    """What the usual wrong recursions return, keyed by the message that names each mistake."""
    r = np.asarray(rewards, dtype=float)
    backward, forward = np.zeros_like(r), np.zeros_like(r)
    running = 0.0
    for t in reversed(range(len(r))):
        running = r[t] + gamma * running
        backward[t] = running
    running = 0.0
    for t in range(len(r)):
        running = r[t] + gamma * running
        forward[t] = running
    after_t = np.append(backward[1:], 0.0)[:len(r)]  # stored before adding r_t: G_{t+1}
    return {FORWARD: forward, EXCLUDES_CURRENT: after_t, DISCOUNTS_CURRENT: gamma * backward}


def expect_returns(got, rewards, gamma, expected, message):
    """``got`` matches ``expected``; a result that one known mistake explains gets that mistake's message."""
    expect_close_naming_mistakes(got, expected, message, known_mistakes(rewards, gamma))


@pytest.mark.weight(3)
@pytest.mark.parametrize("case", EXAMPLES, ids=str)
def test_worked_example(impl, case):
    got = impl.reward_to_go(**case.args)
    expect_returns(got, case.args["rewards"], case.args["gamma"], case.expected,
                   f"does not reproduce the module's worked example '{case.name}': {case.hint}")


# -- misconception probes: each input makes one mistake show -------------------------------
@pytest.mark.weight(2)
def test_accumulates_future_rewards(impl, reference):
    rewards = np.array([2.0, 0.0, -1.0, 4.0])
    expect_returns(impl.reward_to_go(rewards, 0.8), rewards, 0.8, reference.reward_to_go(rewards, 0.8), FORWARD)


@pytest.mark.weight(2)
def test_includes_the_current_reward(impl, reference):
    rewards = np.array([2.0, -1.0, 4.0, 0.5])
    expect_returns(impl.reward_to_go(rewards, 1.0), rewards, 1.0, reference.reward_to_go(rewards, 1.0),
                   EXCLUDES_CURRENT)


@pytest.mark.weight(2)
def test_current_reward_is_not_discounted(impl, reference):
    rewards = np.array([1.0, 0.0, 0.0, 2.0])
    expect_returns(impl.reward_to_go(rewards, 0.5), rewards, 0.5, reference.reward_to_go(rewards, 0.5),
                   DISCOUNTS_CURRENT)


def test_gamma_zero_gives_immediate_rewards(impl, reference):
    rewards = np.array([3.0, -1.0, 0.5, 2.0])
    expect_returns(impl.reward_to_go(rewards, 0.0), rewards, 0.0, reference.reward_to_go(rewards, 0.0),
                   "with gamma = 0 the return is the immediate reward, G_t = r_t (beware of 0 ** 0 and of "
                 "negative powers of 0 in a vectorised formula)")


def test_gamma_one_is_allowed(impl, reference):
    rewards = np.array([1.0, -2.0, 0.5])
    message = "gamma = 1 is allowed (undiscounted returns: G_t sums the rewards from t to the end)"
    got = expect_success(impl.reward_to_go, rewards, 1.0, message=message)
    expect_returns(got, rewards, 1.0, reference.reward_to_go(rewards, 1.0), message)


def test_empty_episode(impl):
    message = "an empty episode (T = 0) must give an empty array"
    got = expect_success(impl.reward_to_go, np.zeros(0), 0.9, message=message)
    expect_close(got, np.zeros(0), message)


# -- properties against the reference ----------------------------------------------------
@st.composite
def episodes(draw):
    t = draw(st.integers(min_value=0, max_value=30))
    rewards = np.array(draw(st.lists(st.floats(min_value=-10, max_value=10, allow_nan=False), min_size=t, max_size=t)),
                       dtype=float)
    gamma = draw(st.one_of(st.sampled_from([0.0, 1.0, 0.5, 0.99]), st.floats(min_value=0.0, max_value=1.0)))
    return rewards, gamma


@pytest.mark.weight(2)
@given(episodes())
@example(case=(np.zeros(0), 0.9))
@example(case=(np.array([2.5]), 0.0))
@example(case=(np.array([1.0, -2.0, 3.0, 0.5]), 1.0))
def test_matches_reference_on_random_inputs(impl, reference, case):
    rewards, gamma = case
    expect_returns(impl.reward_to_go(rewards, gamma), rewards, gamma, reference.reward_to_go(rewards, gamma),
                   "differs from G_t = r_t + gamma * G_{t+1} on random episodes (lengths 0 to 30, gamma 0, 1 "
                   "and between)")


def test_accepts_lists(impl):
    # Compared with the submission's own answer for the float array: only the input type is tested here.
    message = "plain Python lists must be accepted like arrays"
    got = expect_success(impl.reward_to_go, [1.5, -0.5, 2.0], 0.9, message=message)
    expect_close(got, impl.reward_to_go(np.array([1.5, -0.5, 2.0]), 0.9), message)
    message = ("plain Python lists must be accepted like arrays, integer rewards included: discounted returns "
               "are fractional, so compute them in a float array")
    got = expect_success(impl.reward_to_go, [1, 0, 3], 0.5, message=message)
    expect_close(got, impl.reward_to_go(np.array([1.0, 0.0, 3.0]), 0.5), message)


def test_does_not_modify_inputs(impl):
    expect_inputs_unchanged(impl.reward_to_go, np.array([1.0, 2.0, -1.0, 0.5]), 0.9,
                            message="reward_to_go modifies the caller's rewards in place (accumulating into "
                                    "the input array); write the returns into a new array")


# -- validation ----------------------------------------------------------------------------
@pytest.mark.parametrize("gamma", [1.5, -0.1], ids=["above_1", "negative"])
def test_rejects_gamma_outside_unit_interval(impl, gamma):
    expect_raises(ValueError, impl.reward_to_go, np.array([1.0, 2.0]), gamma,
                  message="gamma outside [0, 1] must raise ValueError")


def test_rejects_two_dimensional_rewards(impl):
    expect_raises(ValueError, impl.reward_to_go, np.ones((2, 3)), 0.9,
                  message="2-D rewards must raise ValueError (one episode at a time)")
