"""The course's PPO: gradients, advantages, evaluation, aggregation, and that it learns.

Trainings here use tiny budgets; the smoke-budget run is marked slow.
"""

from __future__ import annotations

import dataclasses
import os
import subprocess
import sys

import numpy as np
import pytest

from tests.helpers import ROOT

sys.path.insert(0, str(ROOT / "solutions"))
import cartpole  # noqa: E402
import gae  # noqa: E402
import ppo_training as ppo  # noqa: E402

TINY = dict(total_timesteps=1024, num_envs=4, num_steps=32, update_epochs=2, num_minibatches=2,
            hidden_sizes=(16, 16), evaluation_every=2, evaluation_episodes=3)


def gradient_check_setup(seed=0, n=24):
    rng = np.random.default_rng(seed)
    config = ppo.PPOConfig(hidden_sizes=(8, 8), entropy_coef=0.05, value_clip=0.3, clip_epsilon=0.2,
                           value_coef=0.7)
    shapes = ppo.parameter_shapes(config.hidden_sizes)
    flat = ppo.init_parameters(config.hidden_sizes, rng)
    flat += rng.normal(scale=0.3, size=flat.size)  # away from the near-uniform initial policy
    params = ppo.unflatten(flat, shapes)
    obs = rng.normal(size=(n, ppo.OBSERVATION_SIZE))
    actions = rng.integers(0, ppo.NUM_ACTIONS, size=n)
    current = ppo.log_softmax(ppo.policy_logits(params, obs))[np.arange(n), actions]
    batch = {
        "observations": obs,
        "actions": actions,
        # Old log-probs and values away from the current ones: both branches of both clips occur.
        "log_probs": current + rng.normal(scale=0.4, size=n),
        "values": ppo.state_values(params, obs) + rng.normal(scale=0.6, size=n),
        "advantages": rng.normal(size=n),
        "returns": rng.normal(scale=2.0, size=n),
    }
    return config, shapes, flat, params, batch


def test_backward_pass_matches_finite_differences():
    config, shapes, flat, params, batch = gradient_check_setup()
    _, grads, _ = ppo.loss_and_gradient(params, batch, config)
    analytic = ppo.flatten(grads, shapes)
    numeric = np.zeros_like(flat)
    h = 1e-6
    for i in range(flat.size):
        saved = flat[i]
        flat[i] = saved + h
        plus = ppo.loss_and_gradient(params, batch, config)[0]
        flat[i] = saved - h
        minus = ppo.loss_and_gradient(params, batch, config)[0]
        flat[i] = saved
        numeric[i] = (plus - minus) / (2 * h)
    np.testing.assert_allclose(analytic, numeric, rtol=1e-5, atol=1e-8)

    # The check covered both branches of the policy minimum and of the value clip.
    n = len(batch["actions"])
    new = ppo.log_softmax(ppo.policy_logits(params, batch["observations"]))[np.arange(n), batch["actions"]]
    ratio = np.exp(new - batch["log_probs"])
    a = batch["advantages"]
    a = (a - a.mean()) / (a.std() + 1e-8)
    assert np.any(np.minimum(ratio * a, np.clip(ratio, 0.8, 1.2) * a) < ratio * a)
    assert np.any((ratio > 0.8) & (ratio < 1.2))
    moved = np.abs(ppo.state_values(params, batch["observations"]) - batch["values"])
    assert np.any(moved > config.value_clip) and np.any(moved < config.value_clip)


def test_gradient_flows_only_through_the_selected_branch():
    config, shapes, flat, params, batch = gradient_check_setup(seed=3)
    config = dataclasses.replace(config, entropy_coef=0.0, value_coef=0.0)
    n = len(batch["actions"])
    new = ppo.log_softmax(ppo.policy_logits(params, batch["observations"]))[np.arange(n), batch["actions"]]
    # Every ratio far above the interval with positive advantage: clipping is active everywhere.
    batch = dict(batch, log_probs=new - 1.0, advantages=np.abs(batch["advantages"]) + 0.1)
    config = dataclasses.replace(config, normalize_advantages=False)
    _, grads, _ = ppo.loss_and_gradient(params, batch, config)
    assert np.all(ppo.flatten(grads, shapes) == 0.0)


def test_adam_matches_its_formula():
    opt = ppo.Adam(3, betas=(0.9, 0.99), epsilon=1e-8)
    x = np.array([1.0, -2.0, 3.0])
    g = np.array([0.5, -1.0, 2.0])
    opt.step(x, g, 0.1)
    # After one step the bias-corrected moments are g and g^2: a step of lr * sign(g).
    np.testing.assert_allclose(x, [0.9, -1.9, 2.9], rtol=1e-6)


def test_orthogonal_initialisation():
    rng = np.random.default_rng(0)
    for n_in, n_out in ((4, 64), (64, 64), (64, 2)):
        w = ppo.orthogonal(rng, n_in, n_out, 1.0)
        small = w @ w.T if n_in <= n_out else w.T @ w
        np.testing.assert_allclose(small, np.eye(min(n_in, n_out)), atol=1e-12)


def test_advantages_use_both_masks_and_the_true_final_observation():
    config = ppo.PPOConfig(num_envs=3, num_steps=5, hidden_sizes=(8, 8), gamma=0.9, gae_lambda=0.8)
    rng = np.random.default_rng(1)
    params = ppo.unflatten(ppo.init_parameters(config.hidden_sizes, rng), ppo.parameter_shapes(config.hidden_sizes))
    T, N = 5, 3
    rollout = {
        "rewards": np.ones((T, N)),
        "values": rng.normal(size=(T, N)),
        "terminated": np.zeros((T, N), bool),
        "truncated": np.zeros((T, N), bool),
        "final_observations": rng.normal(size=(T, N, 4)),
    }
    rollout["terminated"][1, 0] = True  # a fall
    rollout["truncated"][2, 1] = True  # a time limit
    advantages, returns = ppo.compute_advantages(params, rollout, config)
    next_values = ppo.state_values(params, rollout["final_observations"].reshape(-1, 4)).reshape(T, N)

    for env in range(N):
        expected = np.zeros(T)
        running = 0.0
        for t in reversed(range(T)):
            term = rollout["terminated"][t, env]
            cut = term or rollout["truncated"][t, env] or t == T - 1
            if cut:
                running = 0.0
            delta = 1.0 + config.gamma * (0.0 if term else next_values[t, env]) - rollout["values"][t, env]
            running = delta + config.gamma * config.gae_lambda * running
            expected[t] = running
        np.testing.assert_allclose(advantages[:, env], expected, rtol=1e-12)
    np.testing.assert_allclose(returns, advantages + rollout["values"])
    # The truncated step bootstraps from its own final observation's value.
    t, env = 2, 1
    assert advantages[t, env] == pytest.approx(1.0 + 0.9 * next_values[t, env] - rollout["values"][t, env])


def test_advantages_reject_a_wrongly_shaped_gae(monkeypatch):
    config = ppo.PPOConfig(num_envs=2, num_steps=4, hidden_sizes=(8, 8))
    params = ppo.unflatten(ppo.init_parameters((8, 8), np.random.default_rng(0)), ppo.parameter_shapes((8, 8)))
    rollout = {"rewards": np.ones((4, 2)), "values": np.zeros((4, 2)), "terminated": np.zeros((4, 2), bool),
               "truncated": np.zeros((4, 2), bool), "final_observations": np.zeros((4, 2, 4))}
    monkeypatch.setattr(gae, "gae_advantages", lambda *a, **k: np.zeros(7))
    with pytest.raises(ValueError, match="gae_advantages returned shape"):
        ppo.compute_advantages(params, rollout, config)


def test_evaluation_matches_single_environments():
    rng = np.random.default_rng(5)
    flat = ppo.init_parameters((16, 16), rng)
    flat += rng.normal(scale=0.5, size=flat.size)  # a policy that neither falls at once nor always balances
    params = ppo.unflatten(flat, ppo.parameter_shapes((16, 16)))
    returns = ppo.evaluate_policy(params, episodes=4, seed=77)
    for k in range(4):
        env = cartpole.CartPoleEnv()
        obs, _ = env.reset(seed=77 + k)
        total, done = 0.0, False
        while not done:
            obs, r, term, trunc, _ = env.step(int(ppo.greedy_actions(params, obs[None])[0]))
            total += r
            done = term or trunc
        assert returns[k] == total


def test_training_result_contract_and_determinism():
    config = ppo.profile_config("smoke", seed=3, **TINY)
    first = ppo.train_ppo(config)
    second = ppo.train_ppo(config)
    for key in ("final_evaluation_mean", "final_evaluation_std", "history", "parameters", "environment_steps"):
        assert key in first
    h = first["history"]
    assert h["update"] == list(range(1, config.num_updates + 1))
    assert h["environment_steps"] == [u * config.batch_size for u in h["update"]]
    evaluated = [np.isfinite(v) for v in h["evaluation_mean"]]
    assert evaluated == [u % 2 == 0 or u == config.num_updates for u in h["update"]]
    for key in ("approx_kl", "active_clip_fraction", "ratio_outside_fraction"):
        assert len(h[key]) == config.num_updates and all(np.isfinite(h[key]))
    assert all(v >= 0 for v in h["approx_kl"])
    assert first["final_evaluation_mean"] == h["evaluation_mean"][-1]
    for name, array in first["parameters"].items():
        np.testing.assert_array_equal(array, second["parameters"][name])
    np.testing.assert_array_equal(first["history"]["evaluation_mean"], second["history"]["evaluation_mean"])
    with pytest.raises(dataclasses.FrozenInstanceError):
        config.seed = 4


def test_profiles():
    smoke, full = ppo.profile_config("smoke", seed=1), ppo.profile_config("full", seed=1)
    assert smoke.total_timesteps < full.total_timesteps <= 100_352
    with pytest.raises(ValueError):
        ppo.profile_config("huge")


def test_aggregate_aligns_runs_and_leaves_gaps():
    def run(steps, values):
        return {"history": {"environment_steps": steps, "evaluation_mean": values}}

    nan = float("nan")
    curve = ppo.aggregate_training_runs([
        run([100, 200, 300], [10.0, nan, 30.0]),
        run([100, 200, 300], [20.0, nan, 50.0]),
        run([100, 200, 300, 400], [30.0, nan, 70.0, 80.0]),
    ])
    np.testing.assert_array_equal(curve["environment_steps"], [100, 200, 300, 400])
    np.testing.assert_allclose(curve["median"], [20.0, nan, 50.0, nan])
    np.testing.assert_allclose(curve["q25"], [15.0, nan, 40.0, nan])
    np.testing.assert_allclose(curve["q75"], [25.0, nan, 60.0, nan])
    assert curve["all_curves"].shape == (3, 4)
    assert ppo.steps_to_threshold(curve, 45.0) == 300
    assert ppo.steps_to_threshold(curve, 475.0) is None


def test_runs_unchanged_with_the_student_stubs():
    # exercises/ holds the same ppo_training.py; with unimplemented functions it says which.
    code = ("import sys; sys.path.insert(0, 'exercises'); import ppo_training as p\n"
            "try:\n    p.train_ppo(p.profile_config('smoke', total_timesteps=256, num_envs=2, num_steps=128))\n"
            "except NotImplementedError as e:\n    print('NIE', e)\n")
    out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=120,
                         env=dict(os.environ, OMP_NUM_THREADS="1"))
    assert out.returncode == 0, out.stderr
    assert "NIE gae_advantages is not implemented" in out.stdout


SMOKE_RUN = """
import sys
import numpy as np
sys.path.insert(0, "solutions")
import ppo_training as ppo
means = []
for seed in (11, 37):
    result = ppo.cartpole_ppo_lab(seed=seed, profile="smoke")
    means.append(ppo.evaluate_policy(result["weights"], episodes=20, seed=5_000 + seed).mean())
print(float(np.median(means)), means)
"""


@pytest.mark.slow
def test_smoke_profile_balances_the_pole():
    # In a fresh process with one BLAS thread, as the grader's worker runs it.
    env = dict(os.environ, OMP_NUM_THREADS="1", OPENBLAS_NUM_THREADS="1", MKL_NUM_THREADS="1")
    out = subprocess.run([sys.executable, "-c", SMOKE_RUN], cwd=ROOT, capture_output=True, text=True,
                         timeout=600, env=env)
    assert out.returncode == 0, out.stderr
    median = float(out.stdout.split()[0])
    assert median >= 475, out.stdout
