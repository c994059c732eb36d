"""Visible check of the tiny autoregressive RLOO/PPO lab (students see this): one training run.

The run is the course's own training loop (llm_sequence.py, as you received it) driven by your
functions, on the smoke budget. The graded version trains on several seeds and samples more
responses with its own generator; it also tells you which of your functions likely held the run back.
"""

from grader import testing
from grader.testing import exercise_params


def test_one_training_run_answers_the_prompts(impl):
    """The GRU trained with your mask, RLOO baselines and clipped PPO terms answers every prompt."""
    params = exercise_params()
    profile = params.get("profile", "smoke")
    seed = 1  # not a graded seed
    # A failure inside the run (your function raised, or returned what the loop cannot use) is reported
    # as it happened, with the line of your file.
    weights = impl.sequence_rloo_lab(seed=seed, profile=profile)
    lab = testing.course_code("llm_sequence")
    problems = lab.check_policy_weights(weights, lab.sequence_profile_config(profile).hidden_size)
    assert not problems, "sequence_rloo_lab returned unusable weights: " + "; ".join(problems)
    evaluation = lab.evaluate_sequence_policy(
        lab.policy_from_weights(weights), samples_per_prompt=100, deterministic=False, seed=2024
    )
    needed = float(params["min_success_rate"])
    assert evaluation["success_rate"] >= needed, (
        f"after training (seed {seed}) {evaluation['success_rate']:.0%} of sampled responses are exactly right, "
        f"it should reach {needed:.0%}: check response_token_mask (shift, generated EOS), "
        "leave_one_out_baselines and masked_token_ppo_terms (the pessimistic minimum)"
    )
