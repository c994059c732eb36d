"""Hidden tests of ppo_clipped_terms: worked examples, misconception probes, properties, validation."""

import numpy as np
import pytest
from hypothesis import strategies as st

from grader.testing import (
    as_numeric,
    example_cases,
    expect,
    expect_close,
    expect_default,
    expect_example,
    expect_inputs_unchanged,
    expect_observed,
    expect_raises,
    expect_right,
    expect_shape,
    given,
)

NAMES = ("unclipped", "clipped", "pessimistic")


def terms(impl, *args, **kwargs) -> dict:
    """The student's three terms by name, or a Misconception about the form of the result."""
    result = impl.ppo_clipped_terms(*args, **kwargs)
    expect(
        isinstance(result, (tuple, list)) and len(result) == 3,
        "ppo_clipped_terms must return the three arrays (unclipped, clipped, pessimistic), in that order",
    )
    return dict(zip(NAMES, result))


def check(impl, reference, message, ratio, advantage, clip_epsilon=0.2, names=NAMES):
    got = terms(impl, ratio, advantage, clip_epsilon=clip_epsilon)
    want = dict(zip(NAMES, reference.ppo_clipped_terms(ratio, advantage, clip_epsilon=clip_epsilon)))
    for name in names:
        expect_close(got[name], want[name], message, what=f"the {name} term")


@pytest.mark.weight(3)
@pytest.mark.parametrize("case", example_cases("ppo_clipped_terms"))
def test_worked_example(impl, case):
    expect_example(case, terms(impl, **case.args))


# -- misconception probes: each input makes one mistake show -------------------------------
@pytest.mark.weight(2)
def test_pessimistic_is_the_minimum(impl, reference):
    check(
        impl,
        reference,
        "the pessimistic term must be the elementwise minimum of r * A and clip(r) * A; taking "
        "the maximum makes the objective optimistic and removes the trust region",
        np.array([1.6, 0.4, 1.0, 1.3]),
        np.array([1.5, -2.0, 0.7, 2.5]),
        names=("pessimistic",),
    )


@pytest.mark.weight(2)
def test_clips_the_ratio_not_the_advantage(impl, reference):
    check(
        impl,
        reference,
        "clips the advantage (or the product r * A) instead of the ratio: clip r to "
        "[1 - eps, 1 + eps] and multiply by the unclipped advantage",
        np.array([1.1, 0.9, 1.05]),
        np.array([3.0, -4.0, 0.5]),
    )


@pytest.mark.weight(2)
def test_small_unclipped_branch_is_kept(impl, reference):
    check(
        impl,
        reference,
        "the pessimistic term is not always the clipped branch: where r * A is smaller (for example "
        "a ratio below the interval with a positive advantage) the minimum keeps r * A",
        np.array([0.3, 1.7, 0.6]),
        np.array([2.0, -1.0, 0.5]),
    )


def test_uses_clip_epsilon(impl, reference):
    # A relation between the student's own answers isolates the cause: the same batch at clip_epsilon 0.1 and
    # 0.3 gives the same clipped term, and that term is clipped (it is not the unclipped one, which ignores
    # clip_epsilon too). Then the clipped term at 0.1 is compared with the definition.
    ratio, advantage = np.array([1.15, 0.85, 1.4, 0.5]), np.array([1.0, -1.0, 2.0, -0.5])
    narrow, wide = terms(impl, ratio, advantage, clip_epsilon=0.1), terms(impl, ratio, advantage, clip_epsilon=0.3)
    clipped = [
        expect_shape(t["clipped"], ratio.shape, "the clipped term has one value per sample", what="the clipped term")
        for t in (narrow, wide)
    ]
    unclipped = as_numeric(narrow["unclipped"], "the unclipped term")
    fixed = np.array_equal(clipped[0], clipped[1]) and not (
        unclipped.shape == ratio.shape and np.allclose(clipped[0], unclipped)
    )
    expect_observed(
        not fixed,
        "the clip interval ignores clip_epsilon: your clipped term is the same at two values "
        "of clip_epsilon; it must be [1 - clip_epsilon, 1 + clip_epsilon]",
    )
    want = dict(zip(NAMES, reference.ppo_clipped_terms(ratio, advantage, clip_epsilon=0.1)))
    expect_right(
        clipped[0],
        want["clipped"],
        "the clipped term differs from clip(r, 1 - clip_epsilon, 1 + clip_epsilon) * A on these samples",
        what="the clipped term",
    )


@pytest.mark.contract
def test_keeps_input_shape(impl):
    got = terms(impl, np.array([[1.5, 0.9, 0.6], [1.0, 1.25, 0.7]]), np.array([[1.0, -2.0, 0.5], [0.0, 3.0, -1.0]]))
    for name in NAMES:
        expect_shape(
            got[name],
            (2, 3),
            "the terms must keep the shape of the inputs (the operation is elementwise "
            "and works for any shape, here a 2-D batch)",
            what=f"the {name} term",
        )


# -- properties against the reference ----------------------------------------------------
@st.composite
def batches(draw):
    n = draw(st.integers(min_value=1, max_value=16))
    eps = draw(st.sampled_from([0.05, 0.1, 0.2, 0.3, 0.5]))
    near = st.builds(
        lambda side, gap: 1.0 + side * (eps + gap),
        st.sampled_from([-1.0, 1.0]),
        st.sampled_from([-1e-3, -1e-6, 1e-6, 1e-3]),
    )  # near the bounds, never on them
    ratio = st.one_of(st.floats(min_value=0.01, max_value=5.0), near, st.just(1.0))
    advantage = st.one_of(st.floats(min_value=-10, max_value=10), st.just(0.0))
    return (
        np.array(draw(st.lists(ratio, min_size=n, max_size=n))),
        np.array(draw(st.lists(advantage, min_size=n, max_size=n))),
        eps,
    )


@pytest.mark.weight(2)
@given(batches())
def test_matches_reference_on_random_batches(impl, reference, batch):
    ratio, advantage, eps = batch
    check(
        impl,
        reference,
        "differs from r * A, clip(r, 1 - eps, 1 + eps) * A and their minimum on random batches "
        "(ratios near the clip bounds, zero advantages, several epsilons)",
        ratio,
        advantage,
        eps,
    )


@pytest.mark.contract
def test_accepts_lists(impl):
    from_lists = terms(impl, [1.5, 0.5, 1.0], [1.0, 1.0, -1.0])
    from_arrays = terms(impl, np.array([1.5, 0.5, 1.0]), np.array([1.0, 1.0, -1.0]))
    for name in NAMES:
        expect_close(
            from_lists[name],
            from_arrays[name],
            "plain Python lists must be accepted like arrays",
            what=f"the {name} term",
        )


@pytest.mark.contract
def test_does_not_modify_inputs(impl):
    expect_inputs_unchanged(
        impl.ppo_clipped_terms, np.array([1.5, 0.5, 1.1]), np.array([1.0, -1.0, 2.0]), clip_epsilon=0.2
    )


# -- validation ----------------------------------------------------------------------------
@pytest.mark.contract
def test_rejects_mismatched_shapes(impl):
    expect_raises(
        ValueError,
        impl.ppo_clipped_terms,
        np.array([1.0, 1.1, 0.9]),
        np.array([1.0]),
        message="ratio and advantage of different shapes must raise ValueError (no silent broadcasting)",
    )


@pytest.mark.contract
@pytest.mark.parametrize("ratio", [np.array([1.0, 0.0]), np.array([-0.5, 1.0])], ids=["zero", "negative"])
def test_rejects_nonpositive_ratios(impl, ratio):
    expect_raises(
        ValueError,
        impl.ppo_clipped_terms,
        ratio,
        np.array([1.0, 1.0]),
        message="a ratio that is zero or negative is not a probability ratio and must raise ValueError",
    )


@pytest.mark.contract
@pytest.mark.course_rule("clip_epsilon_range")
@pytest.mark.parametrize("clip_epsilon", [0.0, 1.0, -0.2, 1.5], ids=["zero", "one", "negative", "above_one"])
def test_rejects_epsilon_outside_unit_interval(impl, clip_epsilon):
    expect_raises(
        ValueError,
        impl.ppo_clipped_terms,
        np.array([1.0, 1.1]),
        np.array([1.0, 1.0]),
        clip_epsilon=clip_epsilon,
        message="clip_epsilon outside (0, 1) must raise ValueError",
    )


# -- defaults: a call without clip_epsilon uses the docstring's value ------------------------
@pytest.mark.contract
def test_default_clip_epsilon(impl, reference):
    # Ratios between 1.1 and 1.2 (and 0.8 and 0.9) are clipped with epsilon 0.1, not with 0.2.
    ratio, advantage = np.array([1.15, 0.85, 1.3, 0.7]), np.array([1.0, -1.0, 1.0, -1.0])
    got, given = terms(impl, ratio, advantage), terms(impl, ratio, advantage, clip_epsilon=0.2)
    want = dict(zip(NAMES, reference.ppo_clipped_terms(ratio, advantage)))

    def compare(a, b, message):
        for name in NAMES:
            expect_close(a[name], b[name], message, what=f"the {name} term")

    expect_default(got, given, want, "clip_epsilon", 0.2, "the interval [0.8, 1.2]", compare)
