"""How the labs are graded: the trusted side trains, the student's functions only answer calls.

A lab once trained inside the student's process and sent back weights; student code
could then reach the training's frame and write a controller into them. Now the
course's training loop runs in the grader's own process with its own weights and
optimiser, and calls the student's functions across the boundary with plain data.
"""

from __future__ import annotations

from tests.helpers import ROOT, grade_json

HOSTILE = ROOT / "tests" / "data" / "hostile"
CARTPOLE_FUNCTIONS = ["gae_advantages", "ppo_clipped_terms", "ppo_diagnostics", "cartpole_ppo_lab"]


def test_a_submission_that_rewrites_the_training_from_its_frame_scores_nothing():
    # gae.py walks up to train_ppo's frame, writes a balancing controller into the weights
    # and zeroes the gradient; anywhere else its functions raise NotImplementedError. It once
    # scored 8/8 on the lab.
    [result] = grade_json(HOSTILE / "lab_frame_cheat", only=CARTPOLE_FUNCTIONS)
    functions = result["functions"]
    for name in ("gae_advantages", "ppo_clipped_terms", "ppo_diagnostics"):
        assert functions[name]["score"] == 0, (name, functions[name])
    lab = functions["cartpole_ppo_lab"]
    assert lab["score"] == 0, lab
    # The message is about the student's own function, not about the training.
    messages = " ".join(t["message"] for t in lab["tests"]) + str(lab["error"])
    assert "gae_advantages" in messages, messages
