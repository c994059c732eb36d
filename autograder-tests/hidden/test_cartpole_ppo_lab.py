"""Hidden test of the CartPole PPO lab: the grader evaluates the weights the training produced.

The student's worker trains PPO with the student's ``gae_advantages`` and
``ppo_clipped_terms`` (the training code itself is the course's own copy) and
sends back only the weights. This side rebuilds the greedy policy from them with
the course's code and plays it on the course's own CartPole with its own seeds,
so the score is a return the weights earn, never one the submission reports.
"""

import numpy as np

from grader import testing
from grader.testing import Misconception, exercise_params, expect

EVALUATION_EPISODES = 20
EVALUATION_SEED = 7_300_001  # not the seed the training code evaluates with


def trusted_modules():
    """The course's lab code and CartPole, loaded in this (trusted) process."""
    course = testing._course()
    return course.reference_module("ppo_training"), course.reference_module("cartpole")


def checked_weights(result, shapes):
    """The policy weights of a lab result, or a Misconception saying what is wrong."""
    expect(isinstance(result, dict) and isinstance(result.get("weights"), dict),
           "cartpole_ppo_lab must return a dict whose 'weights' entry is a dict of arrays "
           "(use the course's ppo_training.py unchanged)")
    weights = {}
    for name, shape in shapes.items():
        value = result["weights"].get(name)
        expect(value is not None, f"the returned weights lack '{name}' (use the course's ppo_training.py unchanged)")
        array = testing.as_numeric(value, f"weights['{name}']")
        expect(array.shape == tuple(shape),
               f"weights['{name}'] has shape {array.shape}, the policy network needs {tuple(shape)}")
        expect(np.all(np.isfinite(array)),
               f"weights['{name}'] contains NaN or infinite values: the training diverged; check that "
               "ppo_clipped_terms returns finite terms and gae_advantages finite advantages")
        weights[name] = array
    return weights


def test_trained_policy_balances_the_pole(impl):
    """Train on every seed of course.yaml, evaluate greedily here, compare the median with the threshold."""
    params = exercise_params()
    lab, cartpole = trusted_modules()
    seeds, profile, needed = params["seeds"], params["profile"], float(params["min_median_return"])
    shapes = lab.parameter_shapes(lab.profile_config(profile).hidden_sizes)
    means = []
    for seed in seeds:
        result = impl.cartpole_ppo_lab(seed=seed, profile=profile)
        weights = checked_weights(result, shapes)
        returns = lab.evaluate_policy(weights, EVALUATION_EPISODES, EVALUATION_SEED + 1000 * seed,
                                      vector_env=cartpole.VectorCartPole)
        means.append(float(np.mean(returns)))
    median = float(np.median(means))
    if median < needed:
        per_seed = ", ".join(f"{m:.0f}" for m in means)
        raise Misconception(
            f"the trained policy balances the pole for a median of {median:.0f} steps (needs {needed:.0f}; "
            f"per training seed: {per_seed}). The training ran but did not learn to balance: check "
            "gae_advantages (terminated alone removes the bootstrap, trace_cuts alone stop the recursion) "
            "and ppo_clipped_terms (the pessimistic term is the elementwise minimum of the unclipped and "
            "clipped terms)")
