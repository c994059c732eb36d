"""CartPole-v1 inside the course: the same dynamics, numbers and API as Gymnasium.

The course ships its own copy so that the labs need nothing beyond numpy and do
not move when Gymnasium changes. It reproduces ``gymnasium.make("CartPole-v1")``
step for step, bit for bit (the course's tests check this against the package):

- constants of Barto, Sutton and Anderson (1983); explicit Euler with the *old*
  velocities, ``tau = 0.02``; float64 state, float32 observations;
- the episode terminates when ``|x| > 2.4`` or ``|theta| > 12 degrees`` (strict);
  the reward is 1 for every step, the terminating one included;
- the 500-step time limit *truncates*: ``truncated=True``. Gymnasium's time-limit
  wrapper does not look at ``terminated``, so a pole that falls exactly on step 500
  gives ``terminated=True`` and ``truncated=True`` together, here as there;
- ``reset(seed=s)`` draws the state as ``np.random.default_rng(s).uniform(-0.05,
  0.05, 4)``; ``reset()`` without a seed continues the generator of the previous
  reset (a fresh, unpredictable one the first time).

:class:`VectorCartPole` steps many copies at once with numpy arrays. It resets a
finished copy by itself and keeps apart what an algorithm must not mix up:
``terminated`` (no continuation value), ``truncated`` (the episode was cut from
outside) and the true last observation of the finished episode.
"""

import math

import numpy as np

GRAVITY = 9.8
MASS_CART = 1.0
MASS_POLE = 0.1
TOTAL_MASS = MASS_POLE + MASS_CART
LENGTH = 0.5  # half the pole's length
POLE_MASS_LENGTH = MASS_POLE * LENGTH
FORCE_MAG = 10.0
TAU = 0.02  # seconds per step
THETA_THRESHOLD_RADIANS = 12 * 2 * math.pi / 360
X_THRESHOLD = 2.4
MAX_EPISODE_STEPS = 500
RESET_LOW, RESET_HIGH = -0.05, 0.05
OBSERVATION_SIZE = 4
NUM_ACTIONS = 2


def _euler_step(x, x_dot, theta, theta_dot, force):
    """One explicit Euler step; works on floats and on arrays alike.

    The operations and their order are Gymnasium's, so float64 results agree to
    the last bit.
    """
    costheta = np.cos(theta)
    sintheta = np.sin(theta)
    temp = (force + POLE_MASS_LENGTH * np.square(theta_dot) * sintheta) / TOTAL_MASS
    thetaacc = (GRAVITY * sintheta - costheta * temp) / (
        LENGTH * (4.0 / 3.0 - MASS_POLE * np.square(costheta) / TOTAL_MASS)
    )
    xacc = temp - POLE_MASS_LENGTH * thetaacc * costheta / TOTAL_MASS
    # Explicit Euler: positions advance with the velocities of the previous state.
    return (x + TAU * x_dot, x_dot + TAU * xacc, theta + TAU * theta_dot, theta_dot + TAU * thetaacc)


def _is_terminal(x, theta):
    return (
        (x < -X_THRESHOLD) | (x > X_THRESHOLD) | (theta < -THETA_THRESHOLD_RADIANS) | (theta > THETA_THRESHOLD_RADIANS)
    )


def _check_action(action):
    if isinstance(action, (bool, np.bool_)) or not isinstance(action, (int, np.integer)) or action not in (0, 1):
        raise ValueError(f"a CartPole action is 0 (push left) or 1 (push right), got {action!r}")
    return int(action)


class CartPoleEnv:
    """One CartPole-v1 episode at a time, with Gymnasium's ``reset``/``step`` API.

    Parameters
    ----------
    max_episode_steps : int, optional
        Steps after which an episode is truncated (500, as in CartPole-v1).

    Examples
    --------
    >>> env = CartPoleEnv()
    >>> obs, info = env.reset(seed=0)
    >>> obs.dtype, obs.shape
    (dtype('float32'), (4,))
    >>> obs, reward, terminated, truncated, info = env.step(1)
    >>> reward, terminated, truncated
    (1.0, False, False)
    """

    observation_size = OBSERVATION_SIZE
    num_actions = NUM_ACTIONS

    def __init__(self, max_episode_steps=MAX_EPISODE_STEPS):
        self.max_episode_steps = int(max_episode_steps)
        self.np_random = None
        self.state = None
        self.elapsed_steps = 0
        self._episode_over = True

    def reset(self, seed=None):
        """Start an episode; return ``(observation, info)``.

        A seed (a non-negative int) restarts the generator as
        ``np.random.default_rng(seed)``; without one the generator continues.
        """
        if seed is not None:
            if isinstance(seed, bool) or not isinstance(seed, (int, np.integer)) or seed < 0:
                raise ValueError(f"seed must be a non-negative integer or None, got {seed!r}")
            self.np_random = np.random.default_rng(int(seed))
        elif self.np_random is None:
            self.np_random = np.random.default_rng()
        self.state = self.np_random.uniform(RESET_LOW, RESET_HIGH, size=(OBSERVATION_SIZE,))
        self.elapsed_steps = 0
        self._episode_over = False
        return np.array(self.state, dtype=np.float32), {}

    def step(self, action):
        """Apply ``action`` (0 left, 1 right); return ``(obs, reward, terminated, truncated, info)``.

        Raises
        ------
        RuntimeError
            If the episode is over (or was never started): call ``reset`` first.
        ValueError
            If ``action`` is not 0 or 1.
        """
        if self._episode_over:
            raise RuntimeError("the episode is over (or was never started): call reset() first")
        force = FORCE_MAG if _check_action(action) == 1 else -FORCE_MAG
        x, x_dot, theta, theta_dot = self.state
        self.state = np.array(_euler_step(x, x_dot, theta, theta_dot, force), dtype=np.float64)
        terminated = bool(_is_terminal(self.state[0], self.state[2]))
        self.elapsed_steps += 1
        truncated = self.elapsed_steps >= self.max_episode_steps
        self._episode_over = terminated or truncated
        return np.array(self.state, dtype=np.float32), 1.0, terminated, truncated, {}


class VectorCartPole:
    """``num_envs`` independent CartPole-v1 copies stepped together, with automatic reset.

    Copy ``i`` behaves exactly like a :class:`CartPoleEnv` reset with ``seed + i``
    and then reset without a seed after each episode (as Gymnasium's vector
    environments seed their copies).

    ``step`` returns, per copy, the observation to act on next: for a copy whose
    episode just ended this is already the first observation of its next episode.
    The true last observation of every copy (needed to bootstrap a truncated
    episode) is ``info["final_observation"]``; for copies that did not finish it
    equals the returned observation.

    Parameters
    ----------
    num_envs : int
        Number of copies.
    max_episode_steps : int, optional
        Time limit of every episode.

    Examples
    --------
    >>> envs = VectorCartPole(3)
    >>> obs, info = envs.reset(seed=0)
    >>> obs.shape
    (3, 4)
    >>> obs, rewards, terminated, truncated, info = envs.step(np.array([0, 1, 1]))
    >>> info["final_observation"].shape, rewards.tolist()
    ((3, 4), [1.0, 1.0, 1.0])
    """

    observation_size = OBSERVATION_SIZE
    num_actions = NUM_ACTIONS

    def __init__(self, num_envs, max_episode_steps=MAX_EPISODE_STEPS):
        if isinstance(num_envs, bool) or not isinstance(num_envs, (int, np.integer)) or num_envs < 1:
            raise ValueError(f"num_envs must be a positive integer, got {num_envs!r}")
        self.num_envs = int(num_envs)
        self.max_episode_steps = int(max_episode_steps)
        self.generators = None
        self.state = None  # shape (num_envs, 4), float64
        self.elapsed_steps = np.zeros(self.num_envs, dtype=np.int64)
        self.episode_returns = np.zeros(self.num_envs)

    def reset(self, seed=None):
        """Start an episode in every copy; return ``(observations, info)``."""
        if seed is not None:
            if isinstance(seed, bool) or not isinstance(seed, (int, np.integer)) or seed < 0:
                raise ValueError(f"seed must be a non-negative integer or None, got {seed!r}")
            self.generators = [np.random.default_rng(int(seed) + i) for i in range(self.num_envs)]
        elif self.generators is None:
            self.generators = [np.random.default_rng() for _ in range(self.num_envs)]
        self.state = np.stack([g.uniform(RESET_LOW, RESET_HIGH, size=(OBSERVATION_SIZE,)) for g in self.generators])
        self.elapsed_steps[:] = 0
        self.episode_returns[:] = 0.0
        return self.state.astype(np.float32), {}

    def step(self, actions):
        """Step every copy; return ``(obs, rewards, terminated, truncated, info)``.

        ``info`` holds ``final_observation`` (float32, shape ``(num_envs, 4)``),
        and ``episode_return``/``episode_length`` (the finished episode's return
        and length where ``terminated | truncated``, else 0).
        """
        if self.state is None:
            raise RuntimeError("call reset() before step()")
        actions = np.asarray(actions)
        if actions.shape != (self.num_envs,) or not ((actions == 0) | (actions == 1)).all():
            raise ValueError(f"actions must be {self.num_envs} values, each 0 or 1")
        force = np.where(actions == 1, FORCE_MAG, -FORCE_MAG)
        s = self.state
        x, x_dot, theta, theta_dot = _euler_step(s[:, 0], s[:, 1], s[:, 2], s[:, 3], force)
        self.state = np.column_stack((x, x_dot, theta, theta_dot))
        terminated = _is_terminal(x, theta)
        self.elapsed_steps += 1
        truncated = self.elapsed_steps >= self.max_episode_steps
        rewards = np.ones(self.num_envs)
        self.episode_returns += rewards
        final_observation = self.state.astype(np.float32)
        done = terminated | truncated
        episode_return = np.where(done, self.episode_returns, 0.0)
        episode_length = np.where(done, self.elapsed_steps, 0)
        for i in np.flatnonzero(done):
            self.state[i] = self.generators[i].uniform(RESET_LOW, RESET_HIGH, size=(OBSERVATION_SIZE,))
            self.elapsed_steps[i] = 0
            self.episode_returns[i] = 0.0
        info = {
            "final_observation": final_observation,
            "episode_return": episode_return,
            "episode_length": episode_length,
        }
        return self.state.astype(np.float32), rewards, terminated, truncated, info
