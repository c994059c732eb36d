"""Visible checks of stable_softmax (students see these)."""

import numpy as np


def test_equal_logits_give_uniform_probabilities(impl):
    """Four equal logits: every action gets probability 1/4."""
    got = impl.stable_softmax(np.array([1.5, 1.5, 1.5, 1.5]))
    assert np.allclose(got, [0.25, 0.25, 0.25, 0.25]), "equal logits should give equal probabilities"


def test_large_logits_do_not_overflow(impl):
    """Logits 2000 and 2000 + log 3: the second action is three times as likely (0.25, 0.75)."""
    got = impl.stable_softmax(np.array([2000.0, 2000.0 + np.log(3.0)]))
    assert np.all(np.isfinite(got)), "exp overflowed: subtract the largest logit before exponentiating"
    assert np.allclose(got, [0.25, 0.75]), "softmax should depend only on differences between logits"


def test_result_is_a_probability_vector(impl):
    """Random logits: non-negative probabilities that sum to one, larger logit -> larger probability."""
    logits = np.random.default_rng(0).normal(size=6)
    got = np.asarray(impl.stable_softmax(logits))
    assert got.shape == (6,), "there should be one probability per logit"
    assert np.all(got >= 0) and np.isclose(got.sum(), 1.0), "the probabilities should sum to one"
    assert np.argmax(got) == np.argmax(logits), "the largest logit should get the largest probability"
