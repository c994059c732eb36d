"""Hidden tests of group_zscore_advantages: worked examples, misconception probes, properties, validation."""

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

WRONG = "differs from (R - mean) / population std, with zeros when the std is below eps, on these rewards"


@pytest.mark.weight(3)
@pytest.mark.parametrize("case", example_cases("group_zscore_advantages"))
def test_worked_example(impl, case):
    expect_example(case, impl.group_zscore_advantages(**case.args))


def check(impl, reference, message, rewards, **kwargs):
    expect_close(
        impl.group_zscore_advantages(rewards, **kwargs), reference.group_zscore_advantages(rewards, **kwargs), message
    )


def check_zeros(impl, reference, message, rewards, nearby, **kwargs):
    """``rewards`` must give zeros (``message``), and the ``nearby`` rewards, with a spread, their z-scores.

    The pair keeps a body that returns zeros whatever it gets from passing an edge case.
    """
    check(impl, reference, message, rewards, **kwargs)
    check(impl, reference, WRONG, nearby, **kwargs)


# -- misconception probes: each input makes one mistake show -------------------------------
# In this order, the first to fail names the mistake: centring and scale invariance hold
# whatever the scale, so only the third depends on which standard deviation is used.
@pytest.mark.weight(2)
def test_centres_the_rewards(impl, reference):
    rewards = np.array([10.0, 12.0, 17.0])
    got = expect_shape(impl.group_zscore_advantages(rewards), (3,), "the result must have one advantage per reward")
    expect(
        abs(np.sum(got)) < 1e-9,
        "the rewards are not centred: subtract the group mean before dividing by the "
        "standard deviation (z-scores sum to zero)",
    )
    expect_right(got, reference.group_zscore_advantages(rewards), WRONG)


@pytest.mark.weight(2)
def test_scale_invariant(impl, reference):
    rewards = np.array([1.0, 4.0, 2.0])
    small = expect_shape(impl.group_zscore_advantages(rewards), (3,), "the result must have one advantage per reward")
    expect_close(
        impl.group_zscore_advantages(10 * rewards),
        small,
        "the z-scores change when every reward is multiplied by 10: divide by the standard deviation, "
        "not by the variance (which scales with the square of the rewards)",
    )
    expect_right(small, reference.group_zscore_advantages(rewards), WRONG)


@pytest.mark.weight(2)
def test_population_standard_deviation(impl, reference):
    check(
        impl,
        reference,
        "the scale is not the population standard deviation: divide the squared deviations by G "
        "(numpy's default ddof=0), not by G - 1 as the sample standard deviation does",
        np.array([1.0, 4.0]),
    )


@pytest.mark.weight(2)
def test_eps_is_a_threshold(impl, reference):
    check(
        impl,
        reference,
        "eps is added to the denominator; it is only a threshold: below it the result is zeros, "
        "otherwise divide by the standard deviation alone",
        np.array([0.0, 1.0, 1.0, 0.0]),
        eps=0.25,
    )


@pytest.mark.weight(2)
def test_constant_group_gives_zeros(impl, reference):
    check_zeros(
        impl,
        reference,
        "a constant group gives nan or inf (0 / 0): with no spread there is no ranking "
        "signal, and the advantages must all be zero",
        np.array([-2.5, -2.5, -2.5, -2.5, -2.5]),
        np.array([-2.5, -2.5, -2.5, -2.5, -1.5]),
    )


def test_rounding_noise_counts_as_constant(impl, reference):
    check_zeros(
        impl,
        reference,
        "equal rewards whose computed mean is off by rounding error must still give zeros: "
        "compare the standard deviation with eps instead of testing for exactly zero",
        np.array([0.1, 0.1, 0.1]),
        np.array([0.1, 0.1, 0.2]),
    )


def test_spread_below_eps_gives_zeros(impl, reference):
    check_zeros(
        impl,
        reference,
        "eps is ignored: a standard deviation below the eps passed in must give zeros",
        np.array([0.0, 1e-3, 2e-3]),
        np.array([0.0, 1e-1, 2e-1]),
        eps=0.01,
    )


def test_tiny_genuine_spread_is_normalised(impl, reference):
    check(
        impl,
        reference,
        "a tiny but genuine spread is treated as constant: the threshold eps applies to the "
        "standard deviation, not to the variance",
        np.array([0.0, 2e-6, 1e-6, 3e-6]),
    )


@pytest.mark.weight(0.5)
def test_threshold_is_strict(impl, reference):
    check(
        impl,
        reference,
        "a standard deviation equal to eps is not below eps: only a strictly smaller one gives zeros",
        np.array([3.0, 1.0]),
        eps=1.0,
    )


def test_large_common_offset(impl, reference):
    check(
        impl,
        reference,
        "loses precision when all rewards share a large offset: centre the rewards first and "
        "average the squared deviations (mean(R^2) - mean(R)^2 cancels catastrophically)",
        1e9 + np.array([0.0, 1.0, 3.0, 2.0]),
    )


@pytest.mark.contract
def test_single_response_gives_zero(impl, reference):
    message = "a group of one response is valid (G >= 1) and has no spread: its advantage is zero"
    rewards = np.array([4.0])
    got = expect_success(impl.group_zscore_advantages, rewards, message=message)
    expect_close(got, reference.group_zscore_advantages(rewards), message)


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
        return draw(st.sampled_from([1e6, -1e3])) + values
    return values * draw(st.sampled_from([1e-5, 1.0, 1e8]))


@pytest.mark.weight(2)
@given(reward_groups(), st.sampled_from([1e-8, 1e-4, 0.5]))
def test_matches_reference_on_random_groups(impl, reference, rewards, eps):
    expect_close(
        impl.group_zscore_advantages(rewards, eps=eps),
        reference.group_zscore_advantages(rewards, eps=eps),
        "differs from (R - mean) / population std, with zeros when the std is below eps, on random groups "
        "(G = 1 and up, constant, 0/1, large and small rewards)",
        rtol=1e-5,
        atol=1e-7,
    )


@pytest.mark.contract
def test_accepts_lists(impl):
    from_list = impl.group_zscore_advantages([1, 2, 6])  # plain integers, too
    expect_close(
        from_list,
        impl.group_zscore_advantages(np.array([1.0, 2.0, 6.0])),
        "plain Python lists (here of integer rewards) must be accepted like arrays of floats; the "
        "advantages are floats, never rounded to integers",
    )


@pytest.mark.contract
def test_does_not_modify_inputs(impl):
    expect_inputs_unchanged(impl.group_zscore_advantages, np.array([2.0, -1.0, 4.0, 0.5]))


# -- validation ----------------------------------------------------------------------------
@pytest.mark.contract
@pytest.mark.parametrize("rewards", [np.array([]), np.ones((2, 3))], ids=["empty", "two_dimensional"])
def test_rejects_invalid_groups(impl, rewards):
    expect_raises(
        ValueError,
        impl.group_zscore_advantages,
        rewards,
        message="rewards must be a non-empty vector: an empty array or a 2-D array must raise ValueError",
    )


@pytest.mark.contract
@pytest.mark.course_rule("nonnegative_eps")
def test_rejects_negative_eps(impl):
    expect_raises(
        ValueError,
        impl.group_zscore_advantages,
        np.array([1.0, 2.0]),
        eps=-0.1,
        message="a negative eps must raise ValueError (it is a threshold on a standard deviation)",
    )
