"""Visible checks of broadcast_sequence_advantages (students see these)."""

import numpy as np


def test_each_response_token_gets_its_row_advantage(impl):
    """Row b carries sequence_advantages[b] on its response tokens and 0 elsewhere."""
    got = impl.broadcast_sequence_advantages(
        np.array([3.0, -1.0]), np.array([[0.0, 1.0, 1.0, 0.0], [1.0, 1.0, 1.0, 1.0]])
    )
    assert np.allclose(got, [[0.0, 3.0, 3.0, 0.0], [-1.0, -1.0, -1.0, -1.0]]), (
        "each response token gets the full advantage of its sequence; masked positions get 0"
    )


def test_mismatched_batch_raises(impl):
    """Three advantages for a batch of two rows is an error."""
    try:
        impl.broadcast_sequence_advantages(np.array([1.0, 2.0, 3.0]), np.ones((2, 3)))
    except ValueError:
        return
    assert False, "sequence_advantages of shape [3] with a mask of shape [2, 3] should raise ValueError"
