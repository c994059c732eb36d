"""Visible checks of sequence_probability_ratio (students see these)."""

import numpy as np


def test_product_of_token_ratios(impl):
    """Token ratios 2 and 3 on the response give 6; the masked column is ignored."""
    new = np.log(np.array([[0.5, 0.3, np.exp(-1.0)]]))
    old = np.log(np.array([[0.25, 0.1, np.exp(-5.0)]]))
    got = impl.sequence_probability_ratio(new, old, np.array([[1.0, 1.0, 0.0]]))
    assert np.allclose(got, [6.0]), "the sequence ratio is the product of the token ratios over response tokens"


def test_row_without_response_tokens_has_ratio_one(impl):
    """An empty product is 1."""
    got = impl.sequence_probability_ratio(np.array([[-1.0, -2.0]]), np.array([[-3.0, -0.5]]), np.array([[0.0, 0.0]]))
    assert np.allclose(got, [1.0]), "a row without response tokens has ratio 1"
