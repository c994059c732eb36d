"""Visible checks of sequence_log_probability_ratio (students see these)."""

import numpy as np


def test_masked_sum_of_token_log_ratios(impl):
    """Token log-ratios 0.5 and 0.5 on the response; the masked column is ignored."""
    got = impl.sequence_log_probability_ratio(
        np.array([[-0.5, -1.0, -2.0]]), np.array([[-1.0, -1.5, -0.1]]), np.array([[1.0, 1.0, 0.0]])
    )
    assert np.allclose(got, [1.0]), "the sequence log-ratio sums new - old over the response tokens"


def test_not_length_normalised_and_empty_row(impl):
    """Two tokens of log-ratio 1 give 2 (a sum, not a mean); a row without response tokens gives 0."""
    got = impl.sequence_log_probability_ratio(
        np.array([[-1.0, -1.0], [-1.0, -1.0]]),
        np.array([[-2.0, -2.0], [-2.0, -2.0]]),
        np.array([[1.0, 1.0], [0.0, 0.0]]),
    )
    assert np.allclose(got, [2.0, 0.0]), "the log-ratio of a response is a sum over its tokens; an empty one is 0"
