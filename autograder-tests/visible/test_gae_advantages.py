"""Visible checks of gae_advantages (students see these)."""

import numpy as np


def test_one_step_bootstraps_from_next_value(impl):
    """A single non-terminal step: A = r + gamma * V(s') - V(s)."""
    got = impl.gae_advantages(
        np.array([1.0]),
        np.array([0.5]),
        np.array([2.0]),
        np.array([False]),
        np.array([True]),
        gamma=0.5,
        gae_lambda=0.5,
    )
    assert np.allclose(got, [1.5]), "one non-terminal step should give r + gamma * next_value - value"


def test_terminal_step_has_no_bootstrap(impl):
    """A terminal step: A = r - V(s)."""
    got = impl.gae_advantages(
        np.array([1.0]), np.array([0.5]), np.array([2.0]), np.array([True]), np.array([True]), gamma=0.5, gae_lambda=0.5
    )
    assert np.allclose(got, [0.5]), "a terminal step must not bootstrap from next_values"


def test_two_steps_chain_by_gamma_lambda(impl):
    """Without cuts, A_0 = delta_0 + gamma * lambda * A_1."""
    got = impl.gae_advantages(
        np.array([0.0, 1.0]),
        np.array([0.0, 0.0]),
        np.array([0.0, 0.0]),
        np.array([False, True]),
        np.array([False, True]),
        gamma=0.5,
        gae_lambda=0.5,
    )
    assert np.allclose(got, [0.25, 1.0]), "the advantage of step 0 should include gamma * lambda * A_1"
