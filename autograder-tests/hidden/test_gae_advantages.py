"""Hidden tests of gae_advantages: worked examples, misconception probes, properties, validation."""

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
    given,
)


def gae_args(rewards, values, next_values, terminated, trace_cuts, gamma, gae_lambda):
    return dict(
        rewards=np.asarray(rewards, dtype=float),
        values=np.asarray(values, dtype=float),
        next_values=np.asarray(next_values, dtype=float),
        terminated=np.asarray(terminated, dtype=bool),
        trace_cuts=np.asarray(trace_cuts, dtype=bool),
        gamma=gamma,
        gae_lambda=gae_lambda,
    )


@pytest.mark.weight(3)
@pytest.mark.parametrize("case", example_cases("gae_advantages"))
def test_worked_example(impl, case):
    expect_example(case, impl.gae_advantages(**case.args))


# -- misconception probes: each input makes one mistake show -------------------------------
def test_lambda_only_decays_the_recursion(impl, reference):
    # Every record cut: no recursion, so gae_lambda must change nothing; only gamma discounts the bootstrap.
    args = gae_args(
        [1.0, 0.5, 2.0], [0.2, 0.4, 0.1], [3.0, -2.0, 5.0], [False] * 3, [True] * 3, gamma=0.9, gae_lambda=0.5
    )
    got = impl.gae_advantages(**args)
    expect_close(
        impl.gae_advantages(**dict(args, gae_lambda=0.8)),
        got,
        "with every record cut the advantages still depend on gae_lambda: it only decays the recursion, "
        "and the bootstrap is discounted by gamma (delta_t = r_t + gamma * next_values_t - values_t)",
    )
    expect_right(
        got,
        reference.gae_advantages(**args),
        "differs from the one-step errors r_t + gamma * next_values_t - values_t with every record cut",
    )


def test_lambda_decays_the_recursion(impl, reference):
    args = gae_args(
        [1.0, 0.5, 2.0, -1.0],
        [0.2, 0.4, 0.1, 0.3],
        [0.4, 0.1, 0.3, 0.7],
        [False] * 4,
        [False, False, False, True],
        gamma=0.9,
        gae_lambda=0.5,
    )
    # The same records at another gae_lambda, asked first: the pair is the student's own evidence of an
    # ignored gae_lambda (and of one that is used), whichever half fails.
    other = dict(args, gae_lambda=0.9)
    at_other = impl.gae_advantages(**other)
    expect_close(
        impl.gae_advantages(**args),
        reference.gae_advantages(**args),
        "the recursion ignores gae_lambda: each step back must decay by gamma * gae_lambda",
    )
    expect_right(at_other, reference.gae_advantages(**other), "differs from the GAE recursion on these records")


def test_trace_cut_stops_the_recursion(impl, reference):
    args = gae_args(
        [1.0, 3.0, 2.0],
        [0.5, 0.5, 0.5],
        [1.0, 1.0, 1.0],
        [False, False, False],
        [False, True, True],
        gamma=0.9,
        gae_lambda=0.95,
    )
    got = impl.gae_advantages(**args)
    expect_close(
        got,
        reference.gae_advantages(**args),
        "the recursion continues across a trace cut: a cut record must not receive later advantages",
    )


def test_truncation_still_bootstraps(impl, reference):
    args = gae_args([1.0, 1.0], [2.0, 2.0], [5.0, 3.0], [False, False], [True, True], gamma=0.9, gae_lambda=0.9)
    expect_close(
        impl.gae_advantages(**args),
        reference.gae_advantages(**args),
        "a trace cut also removed the bootstrap: at a truncation or buffer end (terminated=False) "
        "the target still uses gamma * next_values",
    )


def test_terminal_does_not_bootstrap(impl, reference):
    args = gae_args([1.0, 2.0], [0.5, 1.5], [4.0, 9.0], [False, True], [False, True], gamma=0.9, gae_lambda=0.9)
    expect_close(
        impl.gae_advantages(**args),
        reference.gae_advantages(**args),
        "a terminal transition still bootstraps from next_values; after termination there is no continuation value",
    )


def test_terminated_alone_does_not_cut(impl, reference):
    # terminated=True with no trace cut: the masks answer different questions.
    args = gae_args(
        [1.0, 2.0, 0.5],
        [0.5, 1.0, 0.2],
        [1.0, 3.0, 0.4],
        [False, True, False],
        [False, False, True],
        gamma=0.8,
        gae_lambda=0.9,
    )
    expect_close(
        impl.gae_advantages(**args),
        reference.gae_advantages(**args),
        "terminated is used to stop the recursion; only trace_cuts decides whether it continues",
    )


def test_uses_next_values_not_shifted_values(impl, reference):
    args = gae_args(
        [0.0, 0.0, 0.0], [1.0, 2.0, 3.0], [7.0, -4.0, 5.0], [False] * 3, [False, False, True], gamma=0.9, gae_lambda=0.7
    )
    expect_close(
        impl.gae_advantages(**args),
        reference.gae_advantages(**args),
        "next-state values are taken from values[t + 1] instead of next_values",
    )


def test_last_record_does_not_wrap_around(impl, reference):
    args = gae_args(
        [1.0, 2.0, 4.0], [0.0, 0.0, 0.0], [0.0, 0.0, 0.0], [False] * 3, [False] * 3, gamma=1.0, gae_lambda=1.0
    )
    expect_close(
        impl.gae_advantages(**args),
        reference.gae_advantages(**args),
        "the recursion carries past the end of the array (A_T must be 0 beyond the last record)",
    )


def test_gamma_zero_gives_one_step_errors(impl, reference):
    args = gae_args(
        [1.0, -2.0, 0.5], [0.3, 0.1, 0.2], [9.0, 9.0, 9.0], [False] * 3, [False] * 3, gamma=0.0, gae_lambda=1.0
    )
    expect_close(
        impl.gae_advantages(**args),
        reference.gae_advantages(**args),
        "with gamma = 0 each advantage is r_t - V(s_t); gamma must multiply both the bootstrap and the recursion",
    )


# -- properties against the reference ----------------------------------------------------
@st.composite
def gae_cases(draw):
    t = draw(st.integers(min_value=1, max_value=25))
    floats = st.floats(min_value=-10, max_value=10, allow_nan=False)
    unit = st.sampled_from([0.0, 1.0, 0.5, 0.9, 0.99])
    masks = st.lists(st.booleans(), min_size=t, max_size=t)
    return gae_args(
        draw(st.lists(floats, min_size=t, max_size=t)),
        draw(st.lists(floats, min_size=t, max_size=t)),
        draw(st.lists(floats, min_size=t, max_size=t)),
        draw(masks),
        draw(masks),
        gamma=draw(unit),
        gae_lambda=draw(unit),
    )


@pytest.mark.weight(2)
@given(gae_cases())
def test_matches_reference_on_random_inputs(impl, reference, case):
    expect_close(
        impl.gae_advantages(**case),
        reference.gae_advantages(**case),
        "differs from the definition on random inputs (masks, gamma and lambda at 0, 1 and between)",
    )


def test_all_cuts_and_no_cuts(impl, reference):
    rng = np.random.default_rng(4)
    for cuts in (np.ones(6, bool), np.zeros(6, bool)):
        args = gae_args(
            rng.normal(size=6),
            rng.normal(size=6),
            rng.normal(size=6),
            np.zeros(6, bool),
            cuts,
            gamma=0.97,
            gae_lambda=0.9,
        )
        # Its message names inputs, not a mistake: a failure here is read as a property's.
        expect_right(
            impl.gae_advantages(**args),
            reference.gae_advantages(**args),
            "wrong when every record is cut (advantages are one-step errors) or none is",
        )


@pytest.mark.contract
def test_accepts_lists(impl):
    # Compared with the submission's own answer for arrays: only the input type is tested here.
    lists = ([1.0, 2.0], [0.5, 0.5], [1.0, 1.0], [False, False], [False, True])
    got = impl.gae_advantages(*lists, gamma=0.9, gae_lambda=0.9)
    expect_close(
        got,
        impl.gae_advantages(**gae_args(*lists, gamma=0.9, gae_lambda=0.9)),
        "plain Python lists must be accepted like arrays",
    )


@pytest.mark.contract
def test_does_not_modify_inputs(impl):
    args = gae_args(
        [1.0, 2.0, 3.0],
        [0.5, 0.5, 0.5],
        [1.0, 1.0, 1.0],
        [False, False, True],
        [False, False, True],
        gamma=0.9,
        gae_lambda=0.9,
    )
    expect_inputs_unchanged(impl.gae_advantages, **args)


# -- validation ----------------------------------------------------------------------------
@pytest.mark.contract
def test_rejects_misaligned_inputs(impl):
    args = gae_args([1.0, 2.0], [0.5, 0.5, 0.5], [1.0, 1.0], [False, False], [False, True], 0.9, 0.9)
    expect_raises(
        ValueError,
        impl.gae_advantages,
        **args,
        message="misaligned inputs (values longer than rewards) must raise ValueError",
    )


@pytest.mark.contract
@pytest.mark.parametrize("short", ["values", "terminated", "trace_cuts"])
def test_rejects_broadcastable_inputs(impl, short):
    # A length-1 array broadcasts against the others in numpy arithmetic, so only an explicit
    # alignment check catches it: one flag for the whole array is not a per-record mask.
    args = gae_args([1.0, 2.0, 3.0], [0.5] * 3, [1.0] * 3, [False] * 3, [False, False, True], 0.9, 0.9)
    args[short] = args[short][:1]
    expect_raises(
        ValueError,
        impl.gae_advantages,
        **args,
        message="inputs of different lengths must raise ValueError, also when numpy would broadcast one of them "
        "(a single value or flag is not one per record)",
    )


@pytest.mark.contract
def test_rejects_two_dimensional_inputs(impl):
    args = gae_args(
        np.ones((2, 2)), np.ones((2, 2)), np.ones((2, 2)), np.zeros((2, 2), bool), np.ones((2, 2), bool), 0.9, 0.9
    )
    expect_raises(
        ValueError,
        impl.gae_advantages,
        **args,
        message="2-D inputs must raise ValueError (one trajectory array at a time)",
    )


@pytest.mark.contract
@pytest.mark.parametrize(
    "gamma, gae_lambda",
    [(1.5, 0.9), (-0.1, 0.9), (0.9, 1.2), (0.9, -0.5)],
    ids=["gamma_above_1", "gamma_negative", "lambda_above_1", "lambda_negative"],
)
def test_rejects_parameters_outside_unit_interval(impl, gamma, gae_lambda):
    args = gae_args([1.0], [0.5], [1.0], [False], [True], gamma, gae_lambda)
    expect_raises(
        ValueError, impl.gae_advantages, **args, message="gamma and gae_lambda outside [0, 1] must raise ValueError"
    )
