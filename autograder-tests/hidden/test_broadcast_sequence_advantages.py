"""Hidden tests of broadcast_sequence_advantages: worked example, misconception probes, properties, validation."""

import numpy as np
import pytest
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays

from grader.testing import (
    MASK_INVERTED,
    as_numeric,
    example_cases,
    expect,
    expect_close,
    expect_example,
    expect_inputs_unchanged,
    expect_raises,
    expect_right,
    given,
)


@pytest.mark.weight(3)
@pytest.mark.parametrize("case", example_cases("broadcast_sequence_advantages"))
def test_worked_example(impl, case):
    expect_example(case, impl.broadcast_sequence_advantages(**case.args))


# -- misconception probes: in this order, the first to fail names the mistake -------------
def check(impl, reference, advantages, mask, message):
    advantages, mask = np.asarray(advantages, dtype=float), np.asarray(mask, dtype=float)
    expect_close(
        impl.broadcast_sequence_advantages(advantages, mask),
        reference.broadcast_sequence_advantages(advantages, mask),
        message,
    )


def test_mask_of_ones_gives_every_position_the_advantage(impl, reference):
    advantages, mask = np.array([0.7, -1.3]), np.ones((2, 3))
    got = impl.broadcast_sequence_advantages(advantages, mask)
    expect(not np.allclose(as_numeric(got), 0.0), MASK_INVERTED)
    expect_right(
        got,
        reference.broadcast_sequence_advantages(advantages, mask),
        "differs from sequence_advantages[b] at the response tokens of row b, 0 elsewhere",
    )


@pytest.mark.weight(2)
def test_masked_positions_get_zero(impl, reference):
    # One response token per row: dividing by the response length would change nothing here.
    check(
        impl,
        reference,
        [0.7, -1.3, 2.1],
        [[0, 0, 1, 0, 0], [0, 1, 0, 0, 0], [0, 0, 0, 1, 0]],
        "the advantage is copied onto masked positions: prompt and padding columns must get 0",
    )


@pytest.mark.weight(2)
def test_every_response_token_carries_the_full_advantage(impl, reference):
    # Whole rows of response tokens: ignoring the mask would change nothing here.
    check(
        impl,
        reference,
        [0.9, -0.6],
        [[1, 1, 1, 1, 1], [1, 1, 1, 1, 1]],
        "the advantage is divided by the response length: every response token carries the whole sequence advantage",
    )


def test_row_b_gets_advantage_b(impl, reference):
    # A square mask (B == L) lets the wrong broadcasting axis run without an error.
    check(
        impl,
        reference,
        [1.0, -2.0, 0.5],
        [[0, 1, 0], [0, 0, 1], [1, 0, 0]],
        "advantages are broadcast along the wrong axis: row b must carry sequence_advantages[b] "
        "(use sequence_advantages[:, None])",
    )


def test_row_without_response_tokens_is_zero(impl, reference):
    check(
        impl,
        reference,
        [1.2, -0.4],
        [[1, 1, 1, 1], [0, 0, 0, 0]],
        "a row without response tokens must be all 0 (no nan from dividing by an empty length)",
    )


# -- properties against the reference ----------------------------------------------------
@st.composite
def advantage_cases(draw):
    batch = draw(st.integers(min_value=1, max_value=5))
    length = draw(st.integers(min_value=1, max_value=7))
    advantages = draw(arrays(float, (batch,), elements=st.floats(min_value=-5, max_value=5, allow_nan=False)))
    mask = draw(arrays(float, (batch, length), elements=st.sampled_from([0.0, 1.0])))
    return dict(sequence_advantages=advantages, token_mask=mask)


@pytest.mark.weight(2)
@given(advantage_cases())
def test_matches_reference_on_random_inputs(impl, reference, case):
    expect_close(
        impl.broadcast_sequence_advantages(**case),
        reference.broadcast_sequence_advantages(**case),
        "differs from the definition on random inputs (empty rows, full rows, B and L from 1 up)",
    )


@pytest.mark.contract
def test_accepts_lists(impl):
    # Compared with the submission's own answer for arrays: only the input type is tested here.
    advantages, mask = [1.5, -0.5], [[0, 1, 1], [1, 1, 0]]
    expect_close(
        impl.broadcast_sequence_advantages(advantages, mask),
        impl.broadcast_sequence_advantages(np.array(advantages), np.array(mask, dtype=float)),
        "plain Python lists must be accepted like arrays",
    )


@pytest.mark.contract
def test_does_not_modify_inputs(impl):
    expect_inputs_unchanged(
        impl.broadcast_sequence_advantages, np.array([1.5, -0.5]), np.array([[0.0, 1.0, 1.0], [1.0, 1.0, 0.0]])
    )


# -- validation ----------------------------------------------------------------------------
@pytest.mark.contract
@pytest.mark.parametrize(
    "advantages, mask",
    [
        (np.array([1.0]), np.ones((3, 4))),
        (np.array([1.0, 2.0, 3.0, 4.0]), np.ones((3, 4))),
        (np.array([[1.0], [2.0], [3.0]]), np.ones((3, 4))),
        (np.array([1.0, 2.0, 3.0]), np.ones(3)),
        (np.array([1.0, 2.0, 3.0]), np.ones((3, 4, 1))),
    ],
    ids=[
        "one_advantage_for_a_batch",
        "advantages_per_column",
        "column_of_advantages",
        "one_dimensional_mask",
        "three_dimensional_mask",
    ],
)
def test_rejects_misshaped_inputs(impl, advantages, mask):
    expect_raises(
        ValueError,
        impl.broadcast_sequence_advantages,
        advantages,
        mask,
        message="sequence_advantages must be [B] and token_mask [B, L] with the same B; other shapes "
        "must raise ValueError (no silent broadcasting)",
    )
