"""Visible checks of grad_log_softmax (students see these)."""

import numpy as np


def test_uniform_policy(impl):
    """Four equal logits, action 3: the score is onehot(3) - 1/4 = (-0.25, -0.25, -0.25, 0.75)."""
    got = impl.grad_log_softmax(np.zeros(4), 3)
    assert np.allclose(got, [-0.25, -0.25, -0.25, 0.75]), "the score should be onehot(action) - softmax(logits)"


def test_components_sum_to_zero(impl):
    """The sampled action's component is positive, the others negative, and they sum to zero."""
    logits = np.array([1.0, -2.0, 0.5, 0.0, 3.0])
    got = np.asarray(impl.grad_log_softmax(logits, 1))
    assert got.shape == (5,), "there should be one component per logit"
    assert got[1] > 0 and np.all(np.delete(got, 1) < 0), "raising the sampled logit should increase log pi(action)"
    assert abs(got.sum()) < 1e-9, "the components of the score should sum to zero"


def test_matches_finite_differences(impl):
    """Central differences of log softmax(logits)[action] agree with the analytic score."""
    logits = np.array([0.3, -0.7, 1.1])
    action, h = 2, 1e-6

    def log_prob(z):
        return z[action] - np.log(np.sum(np.exp(z)))

    numeric = np.array([(log_prob(logits + h * e) - log_prob(logits - h * e)) / (2 * h) for e in np.eye(3)])
    got = impl.grad_log_softmax(logits, action)
    assert np.allclose(got, numeric, atol=1e-6), "the score should be the gradient of log pi(action) w.r.t. the logits"
