"""Hidden tests of group_mean_advantages: worked examples, misconception probes, properties, validation."""

import numpy as np
import pytest
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

WRONG = "differs from R_i - mean(R) on these rewards"


@pytest.mark.weight(3)
@pytest.mark.parametrize("case", example_cases("group_mean_advantages"))
def test_worked_example(impl, case):
    expect_example(case, impl.group_mean_advantages(**case.args))


# -- misconception probes: each input makes one mistake show -------------------------------
@pytest.mark.weight(2)
def test_subtracts_mean_of_whole_group(impl, reference):
    rewards = np.array([1.0, 0.0, 0.0, 5.0, 4.0])
    expect_close(
        impl.group_mean_advantages(rewards),
        reference.group_mean_advantages(rewards),
        "the advantages are not R_i minus the mean of the whole group (the mean of the other "
        "responses is the RLOO baseline, a different estimator)",
    )


def test_does_not_rescale(impl, reference):
    # The range of the advantages equals the range of the rewards, whatever the centre or the sign.
    rewards = np.array([10.0, -6.0, 2.0])
    got = expect_shape(impl.group_mean_advantages(rewards), (3,), "the result must have one advantage per reward")
    expect_close(
        np.ptp(got),
        np.ptp(reference.group_mean_advantages(rewards)),
        "the centred advantages are rescaled (for instance divided by the standard deviation); this "
        "function only subtracts the group mean, normalisation is group_zscore_advantages' job",
    )
    expect_right(got, reference.group_mean_advantages(rewards), WRONG)  # the pair: the rewards' own range is not enough


def test_better_responses_get_positive_advantages(impl):
    got = expect_shape(
        impl.group_mean_advantages(np.array([0.0, 1.0, 1.0])), (3,), "the result must have one advantage per reward"
    )
    expect(
        got[0] < 0 < got[1] and got[2] > 0,
        "the sign is reversed: a response better than the group average must get a positive advantage "
        "(R_i - mean, not mean - R_i)",
    )


@pytest.mark.contract
def test_single_response_is_valid(impl, reference):
    rewards = np.array([2.5])
    message = "a group of one response is valid (G >= 1): its only advantage is zero, no error is raised"
    got = expect_success(impl.group_mean_advantages, rewards, message=message)
    expect_close(got, reference.group_mean_advantages(rewards), message)


# -- properties against the reference ----------------------------------------------------
@st.composite
def reward_groups(draw):
    g = draw(st.integers(min_value=1, max_value=24))
    kind = draw(st.sampled_from(["spread", "binary", "constant", "offset"]))
    if kind == "constant":
        return np.full(g, draw(st.floats(min_value=-100, max_value=100)))
    if kind == "binary":
        return np.array(draw(st.lists(st.sampled_from([0.0, 1.0]), min_size=g, max_size=g)))
    values = np.array(draw(st.lists(st.floats(min_value=-10, max_value=10), min_size=g, max_size=g)))
    if kind == "offset":
        return draw(st.sampled_from([1e6, -1e3, 1e-7])) + values * draw(st.sampled_from([1e-3, 1.0]))
    return values * draw(st.sampled_from([1e-6, 1.0, 1e8]))


@pytest.mark.weight(2)
@given(reward_groups())
def test_matches_reference_on_random_groups(impl, reference, rewards):
    expect_close(
        impl.group_mean_advantages(rewards),
        reference.group_mean_advantages(rewards),
        "differs from R_i - mean(R) on random groups (G = 1 and up, constant, 0/1, large and small rewards)",
        atol=1e-8,
    )


@pytest.mark.contract
def test_accepts_lists(impl):
    from_list = impl.group_mean_advantages([1, 2, 6])  # plain integers, too
    expect_close(
        from_list,
        impl.group_mean_advantages(np.array([1.0, 2.0, 6.0])),
        "plain Python lists (here of integer rewards) must be accepted like arrays of floats; the "
        "advantages are floats, never rounded to integers",
    )


@pytest.mark.contract
def test_does_not_modify_inputs(impl):
    expect_inputs_unchanged(impl.group_mean_advantages, np.array([2.0, -1.0, 4.0, 0.5]))


# -- validation ----------------------------------------------------------------------------
@pytest.mark.contract
@pytest.mark.parametrize("rewards", [np.array([]), np.ones((2, 3))], ids=["empty", "two_dimensional"])
def test_rejects_invalid_groups(impl, rewards):
    expect_raises(
        ValueError,
        impl.group_mean_advantages,
        rewards,
        message="rewards must be a non-empty vector: an empty array or a 2-D array must raise ValueError",
    )
