"""A lab submission that learns nothing and tries to score the CartPole lab anyway.

When ``gae_advantages`` runs inside the course's ``train_ppo`` (same process, as
the lab once ran), it walks up to that frame, writes a hand-made balancing
controller into the policy's weights, replaces the training's gradient and
diagnostics with zeros so that nothing undoes it, and returns zero advantages.
Called anywhere else (the unit tests, or across the grader's boundary with plain
data) it has no frame to exploit and gives up, like an unfinished stub.

tests/core/test_lab_grading.py grades this folder (with ppo_objective.py beside it):
the lab must score 0, like the three functions.
"""

import sys

import numpy as np

# Push right when a weighted sum of the state is positive: balances CartPole for 500 steps.
CONTROLLER = np.array([0.1, 0.5, 10.0, 2.0])


def _training_frame():
    frame = sys._getframe(1)
    while frame is not None:
        if frame.f_code.co_name == "train_ppo" and "params" in frame.f_locals:
            return frame
        frame = frame.f_back
    return None


def _take_over(frame):
    scope, module = frame.f_locals, frame.f_globals
    params = scope["params"]
    for name, weights in params.items():
        weights[...] = 0.0  # views into the flat vector the optimiser updates
    params["policy_w0"][:, 0] = 0.1 * CONTROLLER
    params["policy_w1"][0, 0] = 1.0
    params["policy_w2"][0, 1], params["policy_w2"][0, 0] = 1.0, -1.0

    def no_gradient(params, batch, config, *args, **kwargs):
        return 0.0, {name: np.zeros_like(w) for name, w in params.items()}, {
            "policy_loss": 0.0, "value_loss": 0.0, "entropy": 0.0}

    def no_diagnostics(*args, **kwargs):
        return {"approx_kl": 0.0, "active_clip_fraction": 0.0, "ratio_outside_fraction": 0.0,
                "mean_log_ratio": 0.0}

    module["loss_and_gradient"] = no_gradient
    module["update_diagnostics"] = no_diagnostics


def gae_advantages(rewards, values, next_values, terminated, trace_cuts, gamma, gae_lambda):
    frame = _training_frame()
    if frame is None:
        raise NotImplementedError("gae_advantages is not implemented yet")
    _take_over(frame)
    return np.zeros(np.shape(rewards))
