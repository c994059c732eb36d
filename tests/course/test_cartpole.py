"""The course's CartPole against Gymnasium's CartPole-v1, step for step and bit for bit.

``gymnasium`` is a test-only dependency: the course code never imports it.
"""

from __future__ import annotations

import sys

import numpy as np
import pytest

from tests.helpers import ROOT

gym = pytest.importorskip("gymnasium")

sys.path.insert(0, str(ROOT / "solutions"))
import cartpole  # noqa: E402


def balancing_action(obs, rng, noise):
    """A simple controller (keeps the pole up for 500 steps) with some random actions."""
    if rng.random() < noise:
        return int(rng.integers(2))
    return int(obs[2] + 0.5 * obs[3] + 0.02 * obs[0] + 0.1 * obs[1] > 0)


def policy(kind, rng):
    noise = {"random": 1.0, "noisy": 0.3, "controller": 0.02}[kind]
    return lambda obs: balancing_action(obs, rng, noise)


def run_both(seed, kind, episodes):
    """Play the same actions in Gymnasium and in the course's env; compare every step."""
    ours = cartpole.CartPoleEnv()
    theirs = gym.make("CartPole-v1")
    act = policy(kind, np.random.default_rng(seed + 1000))
    lengths = []
    for episode in range(episodes):
        reset_seed = seed if episode == 0 else None  # later resets continue the generator
        obs_a, _ = ours.reset(seed=reset_seed)
        obs_b, _ = theirs.reset(seed=reset_seed)
        assert obs_a.dtype == np.float32 and np.array_equal(obs_a, obs_b)
        assert np.array_equal(ours.state, theirs.unwrapped.state)
        for t in range(1, 1000):
            action = act(obs_a)
            obs_a, r_a, term_a, trunc_a, _ = ours.step(action)
            obs_b, r_b, term_b, trunc_b, _ = theirs.step(action)
            assert ours.state.dtype == np.float64
            assert np.array_equal(ours.state, theirs.unwrapped.state), (seed, kind, episode, t)
            assert obs_a.dtype == np.float32 and np.array_equal(obs_a, obs_b)
            assert (r_a, term_a, trunc_a) == (r_b, term_b, trunc_b), (seed, kind, episode, t)
            assert type(r_a) is float and type(term_a) is bool and type(trunc_a) is bool
            if term_a or trunc_a:
                lengths.append((t, term_a, trunc_a))
                break
    theirs.close()
    return lengths


@pytest.mark.parametrize("kind", ["random", "noisy", "controller"])
@pytest.mark.parametrize("seed", [0, 1, 7, 42, 2026])
def test_trajectories_are_bit_identical_to_gymnasium(seed, kind):
    lengths = run_both(seed, kind, episodes=4 if kind == "controller" else 12)
    assert len(lengths) == (4 if kind == "controller" else 12)


def test_time_limit_truncates_without_terminating():
    lengths = run_both(3, "controller", episodes=3)
    assert any(t == 500 for t, _, _ in lengths), lengths
    for t, terminated, truncated in lengths:
        if t == 500:
            assert truncated and not terminated
        else:
            assert terminated and not truncated


def test_both_edges_terminate():
    # Pushing one way ends with the pole past 12 degrees; both envs agree on the step.
    for action in (0, 1):
        ours, theirs = cartpole.CartPoleEnv(), gym.make("CartPole-v1")
        ours.reset(seed=5)
        theirs.reset(seed=5)
        for _ in range(100):
            _, _, term_a, _, _ = ours.step(action)
            _, _, term_b, _, _ = theirs.step(action)
            assert term_a == term_b
            if term_a:
                break
        assert term_a and abs(ours.state[2]) > cartpole.THETA_THRESHOLD_RADIANS
        theirs.close()


def test_reset_draws_like_default_rng():
    env = cartpole.CartPoleEnv()
    for seed in (0, 11, 123456):
        env.reset(seed=seed)
        assert np.array_equal(env.state, np.random.default_rng(seed).uniform(-0.05, 0.05, 4))
    # Without a seed: the same generator continues.
    env.reset(seed=9)
    env.reset()
    rng = np.random.default_rng(9)
    rng.uniform(-0.05, 0.05, 4)
    assert np.array_equal(env.state, rng.uniform(-0.05, 0.05, 4))
    # The very first reset without a seed is unpredictable, not a fixed default.
    starts = {tuple(cartpole.CartPoleEnv().reset()[0]) for _ in range(3)}
    assert len(starts) == 3


def test_contract_errors():
    env = cartpole.CartPoleEnv()
    with pytest.raises(RuntimeError):
        env.step(0)
    env.reset(seed=0)
    for bad in (2, -1, 0.5, True, "1"):
        with pytest.raises(ValueError):
            env.step(bad)
    env.step(np.int64(1))
    for _ in range(200):
        _, _, terminated, truncated, _ = env.step(1)
        if terminated or truncated:
            break
    with pytest.raises(RuntimeError):
        env.step(0)
    with pytest.raises(ValueError):
        env.reset(seed=-1)
    with pytest.raises(ValueError):
        cartpole.VectorCartPole(0)
    envs = cartpole.VectorCartPole(2)
    with pytest.raises(RuntimeError):
        envs.step(np.array([0, 1]))
    envs.reset(seed=0)
    with pytest.raises(ValueError):
        envs.step(np.array([0, 2]))
    with pytest.raises(ValueError):
        envs.step(np.array([0, 1, 1]))


@pytest.mark.parametrize("num_envs, kind", [(1, "noisy"), (5, "random"), (4, "controller"), (8, "noisy")])
def test_vector_env_matches_single_envs(num_envs, kind):
    seed = 31
    vector = cartpole.VectorCartPole(num_envs)
    singles = [cartpole.CartPoleEnv() for _ in range(num_envs)]
    obs, _ = vector.reset(seed=seed)
    single_obs = [env.reset(seed=seed + i)[0] for i, env in enumerate(singles)]
    assert obs.dtype == np.float32 and np.array_equal(obs, np.stack(single_obs))
    act = policy(kind, np.random.default_rng(5))
    returns = np.zeros(num_envs)
    saw = {"terminated": 0, "truncated": 0}
    for _ in range(1300):
        actions = np.array([act(o) for o in single_obs])
        obs, rewards, terminated, truncated, info = vector.step(actions)
        for i, env in enumerate(singles):
            o, r, term, trunc, _ = env.step(actions[i])
            returns[i] += r
            assert np.array_equal(info["final_observation"][i], o), "final observation differs"
            assert (rewards[i], terminated[i], truncated[i]) == (r, term, trunc)
            if term or trunc:
                assert info["episode_return"][i] == returns[i]
                assert info["episode_length"][i] == returns[i]
                returns[i] = 0.0
                saw["terminated" if term else "truncated"] += 1
                o, _ = env.reset()  # continues the copy's generator, like the auto-reset
            else:
                assert info["episode_return"][i] == 0.0
            single_obs[i] = o
        assert np.array_equal(obs, np.stack(single_obs))
        assert np.array_equal(vector.state, np.stack([env.state for env in singles]))
    # Both kinds of episode end occur: falls, and time limits for the controller.
    assert saw["truncated"] > 0 if kind == "controller" else saw["terminated"] > 0


def test_vector_final_observation_is_not_the_reset_observation():
    vector = cartpole.VectorCartPole(2)
    vector.reset(seed=0)
    for _ in range(100):
        obs, _, terminated, truncated, info = vector.step(np.array([1, 1]))
        if terminated.any():
            i = int(np.flatnonzero(terminated)[0])
            assert abs(info["final_observation"][i, 2]) > cartpole.THETA_THRESHOLD_RADIANS
            assert np.all(np.abs(obs[i]) <= 0.05)
            return
    pytest.fail("pushing right never terminated")


def test_fall_on_the_last_allowed_step_sets_both_flags():
    # Gymnasium's time limit ignores `terminated`: a fall on the last step is both.
    env = cartpole.CartPoleEnv()
    env.reset(seed=4)
    steps = 0
    while True:
        steps += 1
        if env.step(1)[2]:
            break
    ours = cartpole.CartPoleEnv(max_episode_steps=steps)
    theirs = gym.make("CartPole-v1", max_episode_steps=steps)
    ours.reset(seed=4)
    theirs.reset(seed=4)
    for _ in range(steps):
        a = ours.step(1)
        b = theirs.step(1)
    assert a[2:4] == b[2:4] == (True, True)
    theirs.close()
