"""Hidden tests of leave_one_out_baselines: worked examples, misconception probes, properties, validation."""

import numpy as np
import pytest
from hypothesis import strategies as st

from grader.testing import (
    example_cases,
    expect_close,
    expect_example,
    expect_inputs_unchanged,
    expect_raises,
    expect_right,
    expect_shape,
    given,
)

WRONG = "differs from b_i = (sum of rewards - R_i) / (G - 1) on these rewards"


@pytest.mark.weight(3)
@pytest.mark.parametrize("case", example_cases("leave_one_out_baselines"))
def test_worked_example(impl, case):
    expect_example(case, impl.leave_one_out_baselines(**case.args))


# -- misconception probes: each input makes one mistake show -------------------------------
@pytest.mark.weight(2)
def test_divides_by_number_of_other_responses(impl, reference):
    rewards = np.array([1.0, 4.0, 10.0])
    expect_close(
        impl.leave_one_out_baselines(rewards),
        reference.leave_one_out_baselines(rewards),
        "the baselines are not the average of the other responses: the sum of the other rewards "
        "must be divided by G - 1 (the number of other responses), not by G",
    )


@pytest.mark.weight(2)
def test_leaves_out_own_reward(impl, reference):
    # Changing R_0 alone must leave b_0 unchanged: b_0 depends only on the other rewards.
    rewards = np.array([0.0, 0.0, 6.0, 2.0, 7.0])
    before = expect_shape(impl.leave_one_out_baselines(rewards), (5,), "the result must have one baseline per reward")
    after = expect_shape(
        impl.leave_one_out_baselines(np.array([9.0, 0.0, 6.0, 2.0, 7.0])),
        (5,),
        "the result must have one baseline per reward",
    )
    expect_close(
        after[0],
        before[0],
        "a baseline still depends on the response's own reward (the same-group mean does, and it biases "
        "the gradient); leave R_i out and average only the other rewards",
    )
    expect_right(before, reference.leave_one_out_baselines(rewards), WRONG)  # the pair: not any constant will do


def test_returns_baselines_not_advantages(impl, reference):
    rewards = np.array([3.0, 8.0])
    expect_close(
        impl.leave_one_out_baselines(rewards),
        reference.leave_one_out_baselines(rewards),
        "the result should be the baselines b_i themselves, not the RLOO advantages R_i - b_i "
        "(with two responses each baseline is simply the other response's reward)",
    )


# -- properties against the reference ----------------------------------------------------
@st.composite
def reward_groups(draw):
    g = draw(st.integers(min_value=2, max_value=24))
    kind = draw(st.sampled_from(["spread", "binary", "constant", "offset"]))
    if kind == "constant":
        return np.full(g, draw(st.floats(min_value=-100, max_value=100)))
    if kind == "binary":
        return np.array(draw(st.lists(st.sampled_from([0.0, 1.0]), min_size=g, max_size=g)))
    values = np.array(draw(st.lists(st.floats(min_value=-10, max_value=10), min_size=g, max_size=g)))
    if kind == "offset":
        return draw(st.sampled_from([1e9, -1e6, 1e-7])) + values * draw(st.sampled_from([1e-3, 1.0, 1e3]))
    return values * draw(st.sampled_from([1e-6, 1.0, 1e8]))


@pytest.mark.weight(2)
@given(reward_groups())
def test_matches_reference_on_random_groups(impl, reference, rewards):
    # sum - R_i cancels: on rewards of 1e9 with a baseline near 0 the reference itself is only
    # right to about G * eps * sum|R|, so a more accurate correct answer (a mean of the others)
    # must not be failed for that; every wrong formula misses by far more than this.
    conditioning = 1e-13 * float(np.sum(np.abs(rewards)))
    expect_close(
        impl.leave_one_out_baselines(rewards),
        reference.leave_one_out_baselines(rewards),
        "differs from b_i = (sum of rewards - R_i) / (G - 1) on random groups (G from 2 up, constant, "
        "0/1 and very large or very small rewards)",
        atol=max(1e-9, conditioning),
    )


@pytest.mark.contract
def test_accepts_lists(impl):
    from_list = impl.leave_one_out_baselines([1, 2, 4])  # plain integers, too
    expect_close(
        from_list,
        impl.leave_one_out_baselines(np.array([1.0, 2.0, 4.0])),
        "plain Python lists (here of integer rewards) must be accepted like arrays of floats; the "
        "baselines are floats, never rounded to integers",
    )


@pytest.mark.contract
def test_does_not_modify_inputs(impl):
    expect_inputs_unchanged(impl.leave_one_out_baselines, np.array([2.0, -1.0, 4.0, 0.5]))


# -- validation ----------------------------------------------------------------------------
@pytest.mark.contract
@pytest.mark.parametrize(
    "rewards", [np.array([5.0]), np.array([]), np.ones((2, 3))], ids=["one_reward", "empty", "two_dimensional"]
)
def test_rejects_invalid_groups(impl, rewards):
    expect_raises(
        ValueError,
        impl.leave_one_out_baselines,
        rewards,
        message="a leave-one-out baseline needs a vector of at least two rewards: a single reward, "
        "an empty array or a 2-D array must raise ValueError",
    )
