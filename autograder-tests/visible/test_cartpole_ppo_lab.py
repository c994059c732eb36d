"""Visible check of the CartPole PPO lab (students see this): one training run, evaluated greedily.

The run is the course's own training loop (ppo_training.py, as you received it) driven by your
gae_advantages and ppo_clipped_terms, on the smoke budget. The graded version trains on several
seeds and evaluates on episodes you do not see.
"""

import numpy as np

from grader import testing
from grader.testing import exercise_params


def test_one_training_run_balances_the_pole(impl):
    """PPO driven by your gae_advantages and ppo_clipped_terms balances CartPole after the smoke budget."""
    params = exercise_params()
    seed = params["seeds"][0]
    # A failure inside the run (your function raised, or returned what the loop cannot use) is reported
    # as it happened, with the line of your file.
    result = impl.cartpole_ppo_lab(seed=seed, profile=params["profile"])
    lab, cartpole = testing.course_code("ppo_training"), testing.course_code("cartpole")
    weights = {
        name: np.asarray(result["weights"][name], dtype=float)
        for name in lab.parameter_shapes(lab.profile_config(params["profile"]).hidden_sizes)
    }
    returns = lab.evaluate_policy(weights, 10, 2024, vector_env=cartpole.VectorCartPole)
    needed = float(params["min_median_return"])
    curve = [v for v in result["history"].get("evaluation_mean", []) if np.isfinite(v)]
    during = f"; its evaluations during training went from {curve[0]:.0f} to {curve[-1]:.0f}" if curve else ""
    assert returns.mean() >= needed, (
        f"after training (seed {seed}) the greedy policy balances for {returns.mean():.0f} steps on average, "
        f"it should reach {needed:.0f}{during}: check gae_advantages (bootstrap only where not terminated, "
        "recursion cut at trace cuts) and ppo_clipped_terms (the pessimistic minimum)"
    )
