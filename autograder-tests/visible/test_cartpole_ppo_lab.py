"""Visible check of the CartPole PPO lab (students see this): one training run, evaluated greedily.

The graded version trains on several seeds and evaluates on episodes you do not see.
"""

import numpy as np

from grader import testing
from grader.testing import exercise_params


def test_one_training_run_balances_the_pole(impl):
    """PPO driven by your gae_advantages and ppo_clipped_terms balances CartPole after the smoke budget."""
    params = exercise_params()
    course = testing._course()
    lab, cartpole = course.reference_module("ppo_training"), course.reference_module("cartpole")
    seed = params["seeds"][0]
    result = impl.cartpole_ppo_lab(seed=seed, profile=params["profile"])
    weights = {
        name: np.asarray(result["weights"][name], dtype=float)
        for name in lab.parameter_shapes(lab.profile_config(params["profile"]).hidden_sizes)
    }
    returns = lab.evaluate_policy(weights, 10, 2024, vector_env=cartpole.VectorCartPole)
    needed = float(params["min_median_return"])
    assert returns.mean() >= needed, (
        f"after training (seed {seed}) the greedy policy balances for {returns.mean():.0f} steps on average, "
        f"it should reach {needed:.0f}: check gae_advantages and ppo_clipped_terms"
    )
