"""Visible checks of masked_token_ppo_terms (students see these)."""

import numpy as np


def test_masked_position_has_ratio_one_and_zero_terms(impl):
    """At a masked position the ratio is 1 and all three terms are 0."""
    ratio, unclipped, clipped, pessimistic = impl.masked_token_ppo_terms(
        np.array([[-1.0, -0.5]]), np.array([[-3.0, -0.5]]), np.array([2.0]), np.array([[0.0, 1.0]])
    )
    assert np.allclose(ratio, [[1.0, 1.0]]), "the masked ratio is 1; the response token has new == old, so ratio 1"
    assert np.allclose(unclipped, [[0.0, 2.0]]), "unclipped is r * A on response tokens and 0 where masked"
    assert np.allclose(pessimistic, [[0.0, 2.0]]), "pessimistic is min(r * A, clip(r) * A), 0 where masked"


def test_large_ratio_is_clipped_for_a_positive_advantage(impl):
    """r = exp(0.5) > 1.2: the pessimistic term takes the clipped value."""
    ratio, unclipped, clipped, pessimistic = impl.masked_token_ppo_terms(
        np.array([[0.0]]), np.array([[-0.5]]), np.array([1.0]), np.array([[1.0]]), clip_epsilon=0.2
    )
    assert np.allclose(ratio, [[np.exp(0.5)]]), "the ratio is exp(new_log_probs - old_log_probs)"
    assert np.allclose(clipped, [[1.2]]), "clip(r) * A with r clipped to [0.8, 1.2]"
    assert np.allclose(pessimistic, [[1.2]]), "the pessimistic term is the smaller of r * A and clip(r) * A"


def test_per_token_advantages(impl):
    """Advantages of shape [B, L] are used position by position."""
    zeros = np.zeros((2, 2))
    advantages = np.array([[1.0, -1.0], [2.0, 0.5]])
    _, _, _, pessimistic = impl.masked_token_ppo_terms(zeros, zeros, advantages, np.ones((2, 2)))
    assert np.allclose(pessimistic, advantages), "with ratios of 1 every term equals its own token's advantage"
