"""Visible checks of simulate_group_baseline_bias (students see these)."""

import numpy as np


def test_reports_every_quantity(impl):
    """All eight keys are present, and the prediction is (G - 1) / G."""
    result = impl.simulate_group_baseline_bias(group_size=5, groups=1000, seed=0)
    keys = {
        "true_gradient",
        "plain_scale",
        "same_group_scale",
        "rloo_scale",
        "predicted_same_group_scale",
        "plain_std",
        "same_group_std",
        "rloo_std",
    }
    assert keys <= set(result), f"the result should contain the keys {sorted(keys)}"
    assert np.isclose(result["predicted_same_group_scale"], 0.8), "for G = 5 the predicted scale is 4 / 5"


def test_same_seed_same_result(impl):
    """The draw is seeded, so two calls with one seed agree exactly."""
    first = impl.simulate_group_baseline_bias(group_size=3, groups=500, seed=9)
    second = impl.simulate_group_baseline_bias(group_size=3, groups=500, seed=9)
    assert first == second, "the same seed should give the same result"


def test_pairs_show_the_shrinkage(impl):
    """With G = 2 the same-group estimator keeps about half the gradient; RLOO keeps all of it."""
    result = impl.simulate_group_baseline_bias(group_size=2, groups=20000, seed=0)
    assert abs(result["same_group_scale"] - 0.5) < 0.05, "same_group_scale should be close to (G - 1) / G = 0.5"
    assert abs(result["rloo_scale"] - 1.0) < 0.1, "rloo_scale should be close to 1 (RLOO is unbiased)"
