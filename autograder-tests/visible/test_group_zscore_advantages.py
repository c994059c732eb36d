"""Visible checks of group_zscore_advantages (students see these)."""

import numpy as np


def test_divides_by_population_std(impl):
    """Rewards (1, 1, 4): centred (-1, -1, 2), population variance 6 / 3 = 2."""
    got = impl.group_zscore_advantages(np.array([1.0, 1.0, 4.0]))
    want = np.array([-1.0, -1.0, 2.0]) / np.sqrt(2.0)
    assert np.allclose(got, want), "divide the centred rewards by the population standard deviation (denominator G)"


def test_constant_group_gives_zeros(impl):
    """No spread means no ranking signal: zeros, never nan."""
    got = impl.group_zscore_advantages(np.array([5.0, 5.0]))
    assert np.all(np.isfinite(got)) and np.allclose(got, [0.0, 0.0]), "a constant group should give zeros, not nan"


def test_result_has_mean_zero_and_unit_std(impl):
    """After normalisation the advantages have mean 0 and population std 1."""
    got = np.asarray(impl.group_zscore_advantages(np.array([0.2, 1.7, -0.4, 3.1])))
    assert np.isclose(got.mean(), 0.0) and np.isclose(got.std(), 1.0), (
        "normalised advantages should have mean 0 and (population) standard deviation 1"
    )
