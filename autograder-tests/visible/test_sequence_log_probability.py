"""Visible checks of sequence_log_probability (students see these)."""

import numpy as np


def test_sums_the_response_tokens(impl):
    """Only positions where the mask is 1 enter the sum."""
    got = impl.sequence_log_probability(np.array([[-0.5, -0.25, -1.0]]), np.array([[0.0, 1.0, 1.0]]))
    assert np.allclose(got, [-1.25]), "the sequence log-probability is the sum of the unmasked token log-probs"


def test_without_a_mask_every_token_counts(impl):
    """With mask=None the sum runs over the whole last axis, one result per sequence."""
    got = impl.sequence_log_probability(np.array([[-0.5, -0.5], [-1.0, -2.0]]))
    assert np.allclose(got, [-1.0, -3.0]), "without a mask, each row's log-probs are summed"


def test_masked_minus_infinity_is_ignored(impl):
    """A -inf log-prob at a masked position must not change the result."""
    got = impl.sequence_log_probability(np.array([[-np.inf, -0.5]]), np.array([[0.0, 1.0]]))
    assert np.allclose(got, [-0.5]), (
        "masked positions are ignored entirely, even when they hold -inf (a course rule beyond the module's code, "
        "which multiplies by the mask)"
    )
