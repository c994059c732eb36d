"""Hidden tests of masked_token_ppo_objective: worked examples, misconception probes, properties, validation."""

import numpy as np
import pytest
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays

from grader.testing import (
    example_cases,
    expect,
    expect_close,
    expect_default,
    expect_example,
    expect_float,
    expect_inputs_unchanged,
    expect_masked_ignored,
    expect_raises,
    expect_right,
    given,
    poison_masked,
)

REDUCTIONS = ["token_mean", "sequence_mean", "sequence_sum_mean"]


def objective_args(new, old, advantages, mask, clip_epsilon=0.2, **reduction):
    return dict(
        new_log_probs=np.asarray(new, dtype=float),
        old_log_probs=np.asarray(old, dtype=float),
        advantages=np.asarray(advantages, dtype=float),
        mask=np.asarray(mask, dtype=float),
        clip_epsilon=clip_epsilon,
        **reduction,
    )


def objective(impl, *args, **kwargs):
    return expect_float(
        impl.masked_token_ppo_objective(*args, **kwargs), "masked_token_ppo_objective must return one number"
    )


LOSS = "the result has the sign of a loss: return the objective to maximise, not its negation"
WRONG = "differs from the reduction of the pessimistic terms min(r*A, clip(r)*A) on these inputs"


def unit_ratio_args(advantages, mask, **reduction):
    """new == old, so every pessimistic term is the advantage itself: only the reduction is at stake."""
    mask = np.asarray(mask, dtype=float)
    log_probs = -np.linspace(0.3, 1.8, mask.size).reshape(mask.shape)
    return objective_args(log_probs, log_probs, advantages, mask, **reduction)


@pytest.mark.weight(3)
@pytest.mark.parametrize("case", example_cases("masked_token_ppo_objective"))
def test_worked_example(impl, case):
    expect_example(case, objective(impl, **case.args))


# -- misconception probes: the reductions --------------------------------------------------
# Responses of three tokens and of one token: per-row and pooled averages differ.
UNEVEN_MASK = [[0, 1, 1, 1], [0, 0, 1, 0]]
UNEVEN_ADVANTAGES = [2.0, -1.0]


@pytest.mark.weight(2)
def test_token_mean_pools_all_tokens(impl, reference):
    args = unit_ratio_args(UNEVEN_ADVANTAGES, UNEVEN_MASK, reduction="token_mean")
    expect_close(
        objective(impl, **args),
        reference.masked_token_ppo_objective(**args),
        "token_mean averages per response first: it must divide the sum over all response tokens of the "
        "batch by their count",
    )


@pytest.mark.weight(2)
def test_sequence_mean_averages_each_response_first(impl, reference):
    args = unit_ratio_args(UNEVEN_ADVANTAGES, UNEVEN_MASK, reduction="sequence_mean")
    expect_close(
        objective(impl, **args),
        reference.masked_token_ppo_objective(**args),
        "sequence_mean divides by the total token count: it must average the tokens of each response "
        "first, then average over the B responses",
    )


def test_sequence_sum_mean_averages_row_sums(impl, reference):
    args = unit_ratio_args(UNEVEN_ADVANTAGES, UNEVEN_MASK, reduction="sequence_sum_mean")
    expect_close(
        objective(impl, **args),
        reference.masked_token_ppo_objective(**args),
        "sequence_sum_mean must average the row sums over the B rows (it is neither the total sum of the "
        "batch nor a per-token mean)",
    )


@pytest.mark.weight(2)
@pytest.mark.course_rule("empty_response_rows")
@pytest.mark.parametrize("reduction", ["sequence_mean", "sequence_sum_mean"])
def test_row_without_response_tokens_still_counts(impl, reference, reduction):
    args = unit_ratio_args([1.5, 4.0, -0.5], [[0, 1, 1], [0, 0, 0], [1, 1, 0]], reduction=reduction)
    got = objective(impl, **args)
    kept = [0, 2]
    without_empty_row = dict(
        args,
        new_log_probs=args["new_log_probs"][kept],
        old_log_probs=args["old_log_probs"][kept],
        advantages=args["advantages"][kept],
        mask=args["mask"][kept],
    )
    if np.isnan(got):
        message = (
            f"a row without response tokens makes {reduction} nan (0/0): such a row contributes 0 and "
            "still counts among the B rows"
        )
    elif np.isclose(got, reference.masked_token_ppo_objective(**without_empty_row)):
        message = (
            f"rows without response tokens are dropped from the mean: under {reduction} such a row "
            "contributes 0 and still counts among the B rows"
        )
    else:
        message = f"under {reduction} a row without response tokens contributes 0 and still counts among the B rows"
    expect_close(got, reference.masked_token_ppo_objective(**args), message)


@pytest.mark.contract
@pytest.mark.course_rule("empty_response_rows")
@pytest.mark.parametrize("reduction", REDUCTIONS)
def test_all_masked_batch_is_zero(impl, reduction):
    args = unit_ratio_args([1.5, -2.0], np.zeros((2, 3)), reduction=reduction)
    got = objective(impl, **args)
    expect(
        not np.isnan(got),
        f"the all-masked batch gives nan under {reduction}: with no response tokens at all the objective is 0.0",
    )
    expect_close(got, 0.0, f"with no response tokens at all the objective is 0.0 (reduction {reduction})")


def test_default_reduction_is_token_mean(impl, reference):
    args = unit_ratio_args(UNEVEN_ADVANTAGES, UNEVEN_MASK)
    got = objective(impl, **args)
    expect_close(got, objective(impl, **args, reduction="token_mean"), "the default reduction must be token_mean")
    expect_right(got, reference.masked_token_ppo_objective(**args), WRONG)  # the pair: not any constant


def test_returns_the_objective_not_a_loss(impl, reference):
    # Positive advantages and ratios of 1: every reduction of the objective is positive.
    for reduction in REDUCTIONS:
        args = unit_ratio_args([1.0, 2.5], [[0, 1, 1], [1, 1, 0]], reduction=reduction)
        got = objective(impl, **args)
        expect(got > 0, LOSS)
        expect_right(got, reference.masked_token_ppo_objective(**args), WRONG)  # the pair: not any positive number


@pytest.mark.weight(2)
def test_reduces_the_pessimistic_terms(impl, reference):
    # Ratios far outside the clip interval, positive and negative advantages, no masked position.
    args = objective_args(
        [[-0.2, -1.6], [-1.2, 0.0]], [[-1.0, -0.9], [-0.2, -0.8]], [1.5, -0.5], np.ones((2, 2)), reduction="token_mean"
    )
    expect_close(
        objective(impl, **args),
        reference.masked_token_ppo_objective(**args),
        "the objective must reduce the pessimistic terms min(r*A, clip(r)*A), not r*A (clipping never reaches it)",
    )


@pytest.mark.weight(2)
@pytest.mark.course_rule("masked_values_ignored")
def test_nonfinite_masked_log_probs_do_not_leak(impl, reference):
    mask = np.array([[0.0, 1.0, 1.0, 0.0], [1.0, 1.0, 0.0, 0.0]])
    new = np.array([[-9.0, -0.5, -1.0, 3.0], [-0.3, -0.2, -7.0, -4.0]])
    old = np.array([[-1.0, -0.7, -0.8, -2.0], [-0.4, -0.1, -0.5, 1.0]])
    bad_new, bad_old = poison_masked(new, old, mask)
    for reduction in REDUCTIONS:
        args = objective_args(new, old, [1.0, -1.0], mask, reduction=reduction)
        poisoned = objective_args(bad_new, bad_old, [1.0, -1.0], mask, reduction=reduction)
        expect_masked_ignored(
            objective(impl, **poisoned), objective(impl, **args), reference.masked_token_ppo_objective(**args), WRONG
        )


# -- properties against the reference ----------------------------------------------------
@st.composite
def objective_cases(draw):
    batch = draw(st.integers(min_value=1, max_value=4))
    length = draw(st.integers(min_value=1, max_value=6))
    shape = (batch, length)
    log_probs = st.floats(min_value=-4, max_value=0, allow_nan=False)
    new = draw(arrays(float, shape, elements=log_probs))
    old = draw(arrays(float, shape, elements=log_probs))
    mask = draw(arrays(float, shape, elements=st.sampled_from([0.0, 1.0, 1.0])))
    # Every row has a response token, and masked positions hold finite extremes only (as in the lab's
    # example): empty rows and -inf or nan are the course rules' own tests.
    mask[mask.sum(axis=1) == 0, 0] = 1.0
    per_token = draw(st.booleans())
    advantages = draw(
        arrays(float, shape if per_token else (batch,), elements=st.floats(min_value=-3, max_value=3, allow_nan=False))
    )
    poison = draw(st.sampled_from([None, -1e6, 30.0]))
    if poison is not None:
        old = np.where(mask != 0, old, poison)
    return objective_args(
        new,
        old,
        advantages,
        mask,
        clip_epsilon=draw(st.sampled_from([0.1, 0.2, 0.3])),
        reduction=draw(st.sampled_from(REDUCTIONS)),
    )


@pytest.mark.weight(2)
@given(objective_cases())
def test_matches_reference_on_random_inputs(impl, reference, case):
    expect_close(
        objective(impl, **case),
        reference.masked_token_ppo_objective(**case),
        f"differs from the definition on random inputs under {case['reduction']} (advantages [B] or [B, L], "
        "extreme values at masked positions)",
    )


@pytest.mark.contract
def test_accepts_lists(impl):
    # Compared with the submission's own answer for arrays: only the input type is tested here.
    lists = ([[-0.5, -1.0], [-0.2, -0.4]], [[-0.6, -0.8], [-0.3, -0.4]], [1.0, -0.5], [[1, 1], [0, 1]])
    expect_close(
        objective(impl, *lists, reduction="sequence_mean"),
        objective(impl, **objective_args(*lists, reduction="sequence_mean")),
        "plain Python lists must be accepted like arrays",
    )


@pytest.mark.contract
def test_does_not_modify_inputs(impl):
    args = objective_args(
        [[-9.0, -0.5, -1.0], [-0.3, -0.2, -7.0]],
        [[-1.0, -0.7, -0.8], [-0.4, -0.1, -0.5]],
        [1.0, -1.0],
        [[0, 1, 1], [1, 1, 0]],
        reduction="sequence_mean",
    )
    expect_inputs_unchanged(impl.masked_token_ppo_objective, **args)


# -- validation ----------------------------------------------------------------------------
@pytest.mark.contract
@pytest.mark.parametrize("reduction", ["mean", "sum", "Token_Mean"])
def test_rejects_an_unknown_reduction(impl, reduction):
    args = unit_ratio_args([1.0, 2.0], [[0, 1, 1], [1, 1, 0]], reduction=reduction)
    expect_raises(
        ValueError,
        impl.masked_token_ppo_objective,
        **args,
        message="an unknown reduction must raise ValueError (only token_mean, sequence_mean and "
        "sequence_sum_mean exist)",
    )


@pytest.mark.contract
@pytest.mark.parametrize(
    "change",
    [dict(mask=np.ones((1, 3))), dict(advantages=np.ones((2, 1)))],
    ids=["mask_one_row", "advantages_column"],
)
def test_rejects_what_the_terms_reject(impl, change):
    args = dict(unit_ratio_args([1.0, 2.0], [[0, 1, 1], [1, 1, 0]], reduction="token_mean"), **change)
    expect_raises(
        ValueError,
        impl.masked_token_ppo_objective,
        **args,
        message="shapes that masked_token_ppo_terms rejects must raise ValueError here too",
    )


@pytest.mark.contract
@pytest.mark.course_rule("clip_epsilon_range")
@pytest.mark.parametrize("clip_epsilon", [0.0, 1.5], ids=["zero", "above_one"])
def test_rejects_clip_epsilon_outside_the_unit_interval(impl, clip_epsilon):
    args = unit_ratio_args([1.0, 2.0], [[0, 1, 1], [1, 1, 0]], reduction="token_mean")
    expect_raises(
        ValueError,
        impl.masked_token_ppo_objective,
        **dict(args, clip_epsilon=clip_epsilon),
        message="clip_epsilon outside (0, 1) must raise ValueError here too, as masked_token_ppo_terms does",
    )


# -- defaults: a call without clip_epsilon uses the docstring's value ------------------------
@pytest.mark.contract
def test_default_clip_epsilon(impl, reference):
    # Ratios between 1.1 and 1.2 are clipped with epsilon 0.1, not with 0.2.
    args = objective_args(np.log([[1.15, 1.18, 1.3]]), np.zeros((1, 3)), [1.0], [[1.0, 1.0, 1.0]])
    given = objective(impl, **args)
    del args["clip_epsilon"]
    got = objective(impl, **args)
    want = reference.masked_token_ppo_objective(**args)
    expect_default(got, given, want, "clip_epsilon", 0.2, "the interval [0.8, 1.2]")
