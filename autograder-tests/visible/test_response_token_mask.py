"""Visible checks of response_token_mask (students see these)."""

import numpy as np


def test_mask_is_aligned_with_the_labels(impl):
    """Column k of the mask describes input_ids[:, k + 1]; a row without EOS runs to its end."""
    ids = np.array([[7, 8, 40, 41, 42]])
    got = impl.response_token_mask(ids, np.array([2]), pad_token_id=0, eos_token_id=3)
    assert np.shape(got) == (1, 4), "the mask has T - 1 columns, one per label input_ids[:, 1:]"
    assert np.allclose(got, [[0.0, 1.0, 1.0, 1.0]]), (
        "with a prompt of 2 tokens the first response token is input_ids[0, 2], i.e. mask column 1"
    )


def test_eos_ends_the_response_and_padding_is_masked(impl):
    """The generated EOS counts by default; with include_eos=False it ends the response uncounted."""
    ids = np.array([[7, 40, 3, 0, 0]])
    got = impl.response_token_mask(ids, np.array([1]), pad_token_id=0, eos_token_id=3)
    assert np.allclose(got, [[1.0, 1.0, 0.0, 0.0]]), "the EOS is a response token (include_eos=True); padding is not"
    got = impl.response_token_mask(ids, np.array([1]), pad_token_id=0, eos_token_id=3, include_eos=False)
    assert np.allclose(got, [[1.0, 0.0, 0.0, 0.0]]), (
        "with include_eos=False the EOS is not counted (a course rule: the module's own mask has no include_eos)"
    )


def test_rows_have_their_own_prompt_lengths(impl):
    """Each row starts its response at its own prompt length."""
    ids = np.array([[7, 8, 40, 41], [7, 40, 3, 0]])
    got = impl.response_token_mask(ids, np.array([2, 1]), pad_token_id=0, eos_token_id=3)
    assert np.allclose(got, [[0.0, 1.0, 1.0], [1.0, 1.0, 0.0]]), (
        "row 0 has a prompt of 2 tokens and no EOS; row 1 a prompt of 1 token, then a token and the EOS"
    )
