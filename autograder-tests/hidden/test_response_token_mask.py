"""Hidden tests of response_token_mask: worked examples, misconception probes, properties, validation.

The default include_eos=True is always asked without the keyword: the module's worked
response_token_mask has no include_eos, and a student who pastes it is asked what it can answer.
include_eos=False, pad == eos and the prompt lengths' range are course rules beyond the module's code
(autograder-tests/course_rules.yaml), each in tests of its own.
"""

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
    given,
)

BOS, PAD, EOS = 1, 0, 2


def mask_args(input_ids, prompt_lengths, pad_token_id=PAD, eos_token_id=EOS, **extra):
    return dict(
        input_ids=np.asarray(input_ids, dtype=np.int64),
        prompt_lengths=np.asarray(prompt_lengths, dtype=np.int64),
        pad_token_id=pad_token_id,
        eos_token_id=eos_token_id,
        **extra,
    )


BOUNDARY = (
    "the prompt boundary is off by one: input_ids[b, prompt_lengths[b]] is the first response token, "
    "i.e. mask column prompt_lengths[b] - 1"
)
NO_EOS = "a row without EOS (a response cut at the length limit) must run to the end of the row"


def check(impl, reference, message, **args):
    expect_close(impl.response_token_mask(**args), reference.response_token_mask(**args), message)


@pytest.mark.weight(3)
@pytest.mark.parametrize("case", example_cases("response_token_mask"))
def test_worked_example(impl, case):
    expect_example(case, impl.response_token_mask(**case.args))


# -- misconception probes: each input makes one mistake show -------------------------------
@pytest.mark.weight(2)
def test_mask_is_shifted_to_the_labels(impl, reference):
    # The EOS keeps a shifted mask apart from a late prompt boundary.
    args = mask_args([[BOS, 5, 6, 7, EOS, PAD], [BOS, 4, 6, 7, 3, EOS]], [2, 3])
    check(
        impl,
        reference,
        "the mask is not shifted: column k must describe input_ids[:, k+1], the label that the "
        "logits at position k score (the mask has T - 1 columns)",
        **args,
    )


@pytest.mark.weight(2)
def test_eos_counts_by_default(impl, reference):
    args = mask_args([[BOS, 5, 6, EOS, PAD], [BOS, 4, 7, EOS, PAD]], [2, 2])
    check(
        impl,
        reference,
        "EOS is excluded from the response: with the default include_eos=True the generated EOS "
        "is a policy action and counts",
        **args,
    )


@pytest.mark.course_rule("include_eos_false")
def test_excluded_eos_still_ends_the_response(impl, reference):
    # Tokens sampled after the EOS are not padding: only the EOS can stop the response.
    args = mask_args([[BOS, 5, 6, EOS, 7, 8, PAD], [BOS, 3, 5, EOS, 4, PAD, PAD]], [2, 2], include_eos=False)
    # The same ids with the default include_eos=True, asked first: the pair is the student's own evidence of
    # an ignored include_eos, whichever half fails.
    counted = mask_args(args["input_ids"], args["prompt_lengths"])
    with_eos = impl.response_token_mask(**counted)
    check(
        impl,
        reference,
        "with include_eos=False the first EOS must still end the response (it is only left "
        "uncounted); tokens after it were counted",
        **args,
    )
    expect_right(with_eos, reference.response_token_mask(**counted), "differs from the response mask on these ids")


@pytest.mark.weight(2)
def test_tokens_after_the_first_eos_are_excluded(impl, reference):
    args = mask_args([[BOS, 5, EOS, 6, 7, PAD], [BOS, 3, 4, EOS, EOS, 5]], [1, 2])
    check(
        impl,
        reference,
        "tokens after the first EOS are counted: the first generated EOS ends the response, "
        "whatever follows it (another EOS, stray tokens, padding)",
        **args,
    )


@pytest.mark.weight(2)
def test_prompt_boundary(impl, reference):
    args = mask_args([[BOS, 5, 6, 7, 8, EOS, PAD], [BOS, 3, 4, 5, 6, 7, EOS], [BOS, 3, 4, 5, 6, EOS, PAD]], [3, 1, 5])
    check(impl, reference, BOUNDARY, **args)


def test_eos_inside_the_prompt_does_not_end_the_response(impl, reference):
    # A chat prompt may contain the EOS id (end of an earlier turn).
    args = mask_args([[BOS, EOS, 5, 6, EOS, PAD], [BOS, 4, EOS, 7, EOS, PAD]], [3, 3])
    check(
        impl,
        reference,
        "an EOS inside the prompt ends the response: only the first EOS at or after the prompt boundary counts",
        **args,
    )


@pytest.mark.weight(2)
@pytest.mark.course_rule("pad_equals_eos")
def test_pad_equal_to_eos(impl, reference):
    # GPT-2 style: padding reuses the EOS id. The first EOS after the prompt is still generated.
    args = mask_args([[BOS, 5, 6, 7, 9, 9, 9], [BOS, 4, 5, 9, 9, 9, 9]], [2, 2], pad_token_id=9, eos_token_id=9)
    check(
        impl,
        reference,
        "pad==eos: the EOS is treated as padding; when pad_token_id == eos_token_id the first "
        "EOS after the prompt still ends the response and counts like any generated EOS",
        **args,
    )


def test_padding_is_never_counted(impl, reference):
    args = mask_args([[BOS, 5, 6, 7, PAD, PAD, PAD], [BOS, 3, PAD, 4, 5, EOS, PAD]], [2, 2])
    check(
        impl,
        reference,
        "padding is counted as a response token: pad positions never count, neither before "
        "the EOS nor in a row without EOS",
        **args,
    )


def test_padding_does_not_end_the_response(impl, reference):
    args = mask_args([[BOS, 3, 4, PAD, 5, EOS, PAD], [BOS, 6, PAD, PAD, 7, EOS, PAD]], [2, 2])
    check(
        impl,
        reference,
        "padding before the EOS ends the response: a pad inside the response is skipped and "
        "the response goes on to the first EOS",
        **args,
    )


def test_row_without_eos_runs_to_the_end(impl, reference):
    args = mask_args([[BOS, 5, 6, 7, 8, 3], [BOS, 4, EOS, PAD, PAD, PAD]], [2, 2])
    check(impl, reference, NO_EOS, **args)


def test_eos_in_the_last_column(impl, reference):
    args = mask_args([[BOS, 5, 6, 7, EOS], [BOS, 4, 5, 6, 7]], [2, 3])
    check(
        impl,
        reference,
        "the last position of input_ids is never counted: the labels run to input_ids[:, T-1], "
        "so an EOS or response token in the last column belongs to the mask",
        **args,
    )


EMPTY_RESPONSE = "an EOS as the very first generated token (an empty response) is missed: the response ends right there"


def test_eos_right_at_the_prompt_boundary(impl, reference):
    args = mask_args([[BOS, 5, EOS, 7, 8, PAD], [BOS, 5, 6, EOS, PAD, PAD]], [2, 3])
    check(impl, reference, EMPTY_RESPONSE, **args)


@pytest.mark.course_rule("include_eos_false")
def test_excluded_eos_right_at_the_prompt_boundary(impl, reference):
    args = mask_args([[BOS, 5, EOS, 7, 8, PAD], [BOS, 5, 6, EOS, PAD, PAD]], [2, 3], include_eos=False)
    check(impl, reference, EMPTY_RESPONSE, **args)
    # The pair: a response before the EOS, so that the right mask is not all zeros.
    args = mask_args([[BOS, 5, EOS, 7, 8, PAD], [BOS, 5, 6, 7, EOS, PAD]], [2, 2], include_eos=False)
    expect_right(
        impl.response_token_mask(**args), reference.response_token_mask(**args), "differs from the response mask"
    )


@pytest.mark.contract
def test_returns_a_float_mask(impl):
    got = impl.response_token_mask(**mask_args([[BOS, 5, 6, EOS], [BOS, 3, EOS, PAD]], [2, 1]))
    kind = np.asarray(got).dtype.kind
    expect(
        kind == "f",
        f"the mask must be a float array of 0.0/1.0 (it has dtype kind {kind!r}); "
        "boolean or integer masks break code that multiplies or averages with them",
    )


# -- properties against the reference ----------------------------------------------------
@st.composite
def token_batches(draw, pad=PAD, include_eos=None):
    """Random batches; ``include_eos`` None asks for the default (no keyword)."""
    batch = draw(st.integers(min_value=1, max_value=4))
    length = draw(st.integers(min_value=2, max_value=9))
    rows, lengths = [], []
    for _ in range(batch):
        prompt = draw(st.integers(min_value=1, max_value=length))
        if draw(st.booleans()):  # prompt, response, maybe EOS, padding
            response = draw(st.integers(min_value=0, max_value=length - prompt))
            words = st.sampled_from([3, 4, 5, 6])
            row = [BOS] + draw(st.lists(words, min_size=prompt - 1, max_size=prompt - 1))
            row += draw(st.lists(words, min_size=response, max_size=response))
            if len(row) < length and draw(st.booleans()):
                row.append(EOS)
            row += [pad] * (length - len(row))
        else:  # anything anywhere: EOS in the prompt, padding inside, several EOS
            row = [BOS] + draw(st.lists(st.sampled_from([PAD, EOS, 3, 4]), min_size=length - 1, max_size=length - 1))
        rows.append(row)
        lengths.append(prompt)
    extra = {} if include_eos is None else {"include_eos": include_eos}
    return mask_args(rows, lengths, pad_token_id=pad, **extra)


@pytest.mark.weight(2)
@given(token_batches())
def test_matches_reference_on_random_batches(impl, reference, case):
    check(impl, reference, "differs from the definition on random batches (padding and EOS anywhere)", **case)


@pytest.mark.course_rule("pad_equals_eos")
@given(token_batches(pad=EOS))
def test_matches_reference_with_pad_equal_to_eos(impl, reference, case):
    check(impl, reference, "differs from the definition on random batches with pad == eos", **case)


@pytest.mark.course_rule("include_eos_false")
@given(token_batches(include_eos=False))
def test_matches_reference_with_include_eos_false(impl, reference, case):
    check(impl, reference, "differs from the definition on random batches with include_eos=False", **case)


# name -> (arguments, what they are, the course rule they show or None)
EDGE_CASES = {
    "T_equals_2_response": (mask_args([[BOS, 5], [BOS, EOS]], [1, 1]), "with T = 2 (one label column)", None),
    "T_equals_2_prompt_only": (
        mask_args([[BOS, 5], [BOS, EOS]], [2, 2]),
        "with T = 2 and the prompt filling the row",
        None,
    ),
    "prompt_fills_row": (
        mask_args([[BOS, 3, 4, 5], [BOS, 3, EOS, PAD]], [4, 4]),
        "when the prompt fills the whole row (no response tokens)",
        None,
    ),
    "only_padding_after_prompt": (
        mask_args([[BOS, 3, PAD, PAD, PAD]], [2]),
        "when the response is all padding (no response tokens)",
        None,
    ),
    "eos_last_excluded": (
        mask_args([[BOS, 3, 4, EOS], [BOS, 5, 6, 7]], [1, 2], include_eos=False),
        "with include_eos=False and an EOS in the last column",
        "include_eos_false",
    ),
    "pad_eq_eos_without_eos": (
        mask_args([[BOS, 3, 4, 5], [BOS, 6, 7, 8]], [2, 1], pad_token_id=2, eos_token_id=2),
        "with pad == eos and rows that never end",
        None,
    ),
}


@pytest.mark.contract
@pytest.mark.parametrize(
    "name",
    [pytest.param(n, marks=[pytest.mark.course_rule(r)] if r else []) for n, (_, _, r) in EDGE_CASES.items()],
)
def test_edge_cases(impl, reference, name):
    args, what, _ = EDGE_CASES[name]
    check(impl, reference, f"wrong {what}", **args)


@pytest.mark.contract
def test_accepts_lists(impl):
    # Compared with the submission's own answer for arrays: only the input type is tested here.
    ids, lengths = [[BOS, 5, 6, EOS, PAD], [BOS, 3, 4, 5, 6]], [2, 3]
    expect_close(
        impl.response_token_mask(ids, lengths, PAD, EOS),
        impl.response_token_mask(**mask_args(ids, lengths)),
        "plain Python lists must be accepted like arrays",
    )


@pytest.mark.contract
def test_does_not_modify_inputs(impl):
    args = mask_args([[BOS, 5, 6, EOS, PAD], [BOS, 3, 4, 5, 6]], [2, 3])
    expect_inputs_unchanged(impl.response_token_mask, **args)


# -- validation ----------------------------------------------------------------------------
@pytest.mark.contract
@pytest.mark.parametrize(
    "input_ids, prompt_lengths",
    [
        ([BOS, 5, 6, EOS], [2]),
        ([[BOS, 5, 6, EOS], [BOS, 3, EOS, PAD]], [2, 2, 2]),
        ([[BOS, 5, 6, EOS], [BOS, 3, EOS, PAD]], [[2], [2]]),
    ],
    ids=["one_dimensional_ids", "too_many_lengths", "two_dimensional_lengths"],
)
def test_rejects_misshaped_inputs(impl, input_ids, prompt_lengths):
    expect_raises(
        ValueError,
        impl.response_token_mask,
        **mask_args(input_ids, prompt_lengths),
        message="input_ids must be [B, T] and prompt_lengths [B]; other shapes must raise ValueError",
    )


@pytest.mark.contract
@pytest.mark.course_rule("prompt_length_range")
@pytest.mark.parametrize("bad_length", [0, 5, -1], ids=["zero", "longer_than_row", "negative"])
def test_rejects_prompt_lengths_outside_the_row(impl, bad_length):
    args = mask_args([[BOS, 5, 6, EOS], [BOS, 3, EOS, PAD]], [2, bad_length])
    expect_raises(
        ValueError, impl.response_token_mask, **args, message="a prompt length outside [1, T] must raise ValueError"
    )
