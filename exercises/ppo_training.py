# Course-provided code: you do not need to change this file.
# Generated from the course's reference solutions by `grader stubs`.
"""Proximal policy optimisation on CartPole, complete, in numpy, readable top to bottom.

Everything PPO needs is here and nothing else: an actor and a critic (two small
tanh MLPs with a hand-written backward pass), Adam, rollouts of ``num_envs``
environments for ``num_steps`` steps that store the old log-probabilities and
values, generalised advantage estimation, repeated epochs over each rollout on the
clipped policy objective and a clipped value loss (shuffled into ``num_minibatches``
minibatches per epoch; the shipped profiles take the whole rollout as one minibatch,
rl-baselines3-zoo's tuned CartPole setting, so there every epoch is one full-batch
step and the shuffle only reorders its rows), an entropy bonus, global
gradient-norm clipping, per-update diagnostics, and a deterministic evaluation
kept apart from training. Every hyperparameter is a field of :class:`PPOConfig`.

Three pieces are *your* functions from the problem sets, and they are all that
this file asks of you: the loop hands them plain arrays and numbers and uses what
they return. It never hands them a weight, the optimiser or anything else of the
training.

- ``gae_advantages`` (gae.py) turns rewards and values into advantages. The two
  masks matter here: ``terminated`` only where the pole fell, ``trace_cuts`` at
  every episode end *and* at the end of each environment's stretch of the buffer;
  a time-limit truncation bootstraps from the value of its true final observation.
- ``ppo_clipped_terms`` (ppo_objective.py) gives the clipped surrogate; its
  gradient is the gradient of whichever branch the minimum selected.
- ``ppo_diagnostics`` (ppo_objective.py) reports what each update did.

Speed: run it with one BLAS thread (``OMP_NUM_THREADS=1`` before numpy is
imported; the grader and the lab notebook do). The matrices are small, and BLAS
threads cost more than they save on them: several times slower on two cores.

Where your functions come from: ``train_ppo(config, functions=...)`` takes any
object with the three functions as attributes. By default it imports them from your
modules (``from gae import gae_advantages``: flat imports resolve to the folder on
``sys.path``, your folder in the lab notebook). The grader runs this same loop in
its own process and passes functions that call yours across its process boundary,
so a graded run is the run you get at home.

Examples
--------
>>> result = train_ppo(profile_config("smoke", seed=11))          # doctest: +SKIP
>>> result["final_evaluation_mean"]                                # doctest: +SKIP
500.0
"""

import dataclasses
import time
import types

import numpy as np

OBSERVATION_SIZE = 4  # CartPole: cart position and velocity, pole angle and angular velocity
NUM_ACTIONS = 2  # push left, push right
SOLVED_RETURN = 475.0  # CartPole-v1's reward threshold (the episode limit is 500)


@dataclasses.dataclass(frozen=True)
class PPOConfig:
    """Every hyperparameter of one training run (see :func:`profile_config`).

    The defaults are the tuned CartPole-v1 settings of rl-baselines3-zoo (short
    rollouts, many epochs, a decaying learning rate), plus a clipped value loss and
    a small entropy bonus. rl-zoo also anneals its clip range linearly from 0.2; here
    ``clip_epsilon`` stays 0.2 for the whole run, the module's fixed epsilon.
    """

    seed: int = 1
    # -- data collection
    num_envs: int = 8  # CartPole copies stepped together
    num_steps: int = 32  # steps per copy in one rollout; batch = num_envs * num_steps
    total_timesteps: int = 100_000  # environment steps of the whole run
    # -- returns and advantages
    gamma: float = 0.98
    gae_lambda: float = 0.8
    normalize_advantages: bool = True  # per minibatch, as in most PPO implementations
    # -- optimisation
    learning_rate: float = 1e-3
    anneal_learning_rate: bool = True  # linearly to zero over the run
    adam_betas: tuple = (0.9, 0.999)
    adam_epsilon: float = 1e-5
    update_epochs: int = 20  # passes over each rollout
    # Minibatches per epoch, each a shuffled share of the rollout. 1 (rl-zoo's CartPole setting):
    # every epoch is one step on the whole rollout, and the shuffle changes nothing but row order.
    num_minibatches: int = 1
    max_grad_norm: float = 0.5  # global norm over actor and critic
    # -- objective
    clip_epsilon: float = 0.2  # policy ratio interval [1 - eps, 1 + eps], fixed (rl-zoo anneals it from 0.2)
    # How far a value may move from its rollout-time estimate per update (None: no clip).
    # Values reach about 1 / (1 - gamma) = 50 here, so this is wider than the ratio clip.
    value_clip: float = 10.0
    value_coef: float = 0.5
    entropy_coef: float = 0.01  # a small bonus against a policy that stops exploring too early
    # -- networks (actor and critic have the same hidden layers, no shared weights)
    hidden_sizes: tuple = (64, 64)
    # Weights and activations in float32, as PyTorch keeps them: twice as fast as float64
    # on these small matrices. (The gradient checks use float64.)
    dtype: str = "float32"
    # -- evaluation (greedy actions, its own environments and seeds)
    evaluation_every: int = 8  # updates between evaluations; the last update is always evaluated
    evaluation_episodes: int = 10
    evaluation_seed: int = 1_000_003
    # Stop once this many evaluations in a row reach SOLVED_RETURN (None: train the whole budget).
    stop_after_solved_evaluations: int | None = None

    @property
    def batch_size(self):
        return self.num_envs * self.num_steps

    @property
    def minibatch_size(self):
        return self.batch_size // self.num_minibatches

    @property
    def num_updates(self):
        return self.total_timesteps // self.batch_size


PROFILES = {
    # Small enough for CI and for the grader, still above the 475 threshold.
    "smoke": dict(total_timesteps=61_440, evaluation_every=10),
    # The budget of the benchmark: several seeds, a denser evaluation curve.
    "full": dict(total_timesteps=100_352, evaluation_every=4),
}
# A graded run (cartpole_ppo_lab) evaluates every 2 updates and stops once the greedy policy
# has reached 475 in 5 evaluations in a row: 8 updates of training between the first and the
# last of them, each one able to undo it. (Over 12 seeds, stopping after 3 or 4 in a row left
# one policy in 12 below 475 on the grader's own evaluation; after 5, every one scored 499.8+.)
# The grade comes from the grader's evaluation of the final weights, never from this one.
GRADED_RUN = dict(evaluation_every=2, stop_after_solved_evaluations=5)


def profile_config(profile="smoke", seed=1, **overrides):
    """The configuration of a named budget.

    Parameters
    ----------
    profile : {"smoke", "full"}
        ``smoke`` is quick (CI, grading); ``full`` is the benchmark budget.
    seed : int
        Seed of the run (initial weights, actions, minibatches, training resets).
    **overrides
        Any other :class:`PPOConfig` field.

    Returns
    -------
    PPOConfig
        Frozen; change a copy with ``dataclasses.replace``.
    """
    if profile not in PROFILES:
        raise ValueError(f"profile must be one of {sorted(PROFILES)}, got {profile!r}")
    return PPOConfig(seed=int(seed), **{**PROFILES[profile], **overrides})


def graded_config(profile="smoke", seed=1):
    """The configuration of a graded run: ``profile``'s budget with :data:`GRADED_RUN`."""
    return profile_config(profile, seed=seed, **GRADED_RUN)


def student_functions():
    """Your ``gae_advantages``, ``ppo_clipped_terms`` and ``ppo_diagnostics``, from your modules."""
    from gae import gae_advantages
    from ppo_objective import ppo_clipped_terms, ppo_diagnostics

    return types.SimpleNamespace(
        gae_advantages=gae_advantages, ppo_clipped_terms=ppo_clipped_terms, ppo_diagnostics=ppo_diagnostics
    )


# ---------------------------------------------------------------------------------------
# Actor and critic: two tanh MLPs whose weights live in one flat vector
# ---------------------------------------------------------------------------------------
def parameter_shapes(hidden_sizes=(64, 64)):
    """Names and shapes of all weights: ``policy_w0, policy_b0, ..., value_w0, ...``.

    Layer ``k`` computes ``h @ w{k} + b{k}``; the policy outputs one logit per
    action, the value network one number.
    """
    shapes = {}
    for prefix, outputs in (("policy", NUM_ACTIONS), ("value", 1)):
        sizes = (OBSERVATION_SIZE, *hidden_sizes, outputs)
        for k, (n_in, n_out) in enumerate(zip(sizes[:-1], sizes[1:])):
            shapes[f"{prefix}_w{k}"] = (n_in, n_out)
            shapes[f"{prefix}_b{k}"] = (n_out,)
    return shapes


def unflatten(flat, shapes):
    """Views into ``flat``, one per named weight: updating ``flat`` updates them all."""
    views, start = {}, 0
    for name, shape in shapes.items():
        size = int(np.prod(shape))
        views[name] = flat[start : start + size].reshape(shape)
        start += size
    return views


def flatten(arrays, shapes):
    return np.concatenate([np.ravel(arrays[name]) for name in shapes])


def orthogonal(rng, n_in, n_out, gain):
    """A random (semi-)orthogonal matrix times ``gain``, the usual PPO initialisation."""
    a = rng.normal(size=(max(n_in, n_out), min(n_in, n_out)))
    q, r = np.linalg.qr(a)
    q = q * np.sign(np.diag(r))  # makes the distribution uniform over orthogonal matrices
    return gain * (q if n_in >= n_out else q.T)


def init_parameters(hidden_sizes, rng, dtype="float64"):
    """A flat parameter vector of ``dtype``: orthogonal weights, zero biases.

    Hidden layers use gain sqrt(2); the policy head 0.01 (near-uniform initial
    policy), the value head 1.
    """
    shapes = parameter_shapes(hidden_sizes)
    flat = np.zeros(sum(int(np.prod(s)) for s in shapes.values()), dtype=dtype)
    params = unflatten(flat, shapes)
    depth = len(hidden_sizes) + 1
    for prefix, head_gain in (("policy", 0.01), ("value", 1.0)):
        for k in range(depth):
            gain = head_gain if k == depth - 1 else np.sqrt(2.0)
            params[f"{prefix}_w{k}"][...] = orthogonal(rng, *params[f"{prefix}_w{k}"].shape, gain)
    return flat


def mlp_forward(params, prefix, x):
    """Output of one network and the activations its backward pass needs (in the weights' dtype)."""
    depth = 1
    while f"{prefix}_w{depth}" in params:
        depth += 1
    h = np.asarray(x, dtype=params[f"{prefix}_w0"].dtype)
    activations = [h]
    for k in range(depth - 1):
        h = np.tanh(h @ params[f"{prefix}_w{k}"] + params[f"{prefix}_b{k}"])
        activations.append(h)
    return h @ params[f"{prefix}_w{depth - 1}"] + params[f"{prefix}_b{depth - 1}"], activations


def mlp_backward(params, prefix, activations, grad_output, grads):
    """Backpropagate ``d loss / d output`` through one network, filling ``grads``."""
    g = grad_output
    for k in reversed(range(len(activations))):
        a = activations[k]
        grads[f"{prefix}_w{k}"] = a.T @ g
        grads[f"{prefix}_b{k}"] = g.sum(axis=0)
        if k > 0:
            g = (g @ params[f"{prefix}_w{k}"].T) * (1.0 - a * a)  # tanh' = 1 - tanh^2


def log_softmax(logits):
    shifted = logits - logits.max(axis=1, keepdims=True)
    return shifted - np.log(np.exp(shifted).sum(axis=1, keepdims=True))


def policy_logits(params, observations):
    """Action logits for a batch of observations, shape ``(batch, NUM_ACTIONS)``."""
    return mlp_forward(params, "policy", observations)[0]


def state_values(params, observations):
    """Critic values for a batch of observations, shape ``(batch,)``."""
    return mlp_forward(params, "value", observations)[0][:, 0]


def greedy_actions(params, observations):
    """The deterministic policy used for evaluation: the most probable action."""
    return np.argmax(policy_logits(params, observations), axis=1)


def numbers(value, what):
    """``value`` (something a student's function returned) as a float array, or a ValueError naming it."""
    try:
        return np.asarray(value, dtype=float)
    except (TypeError, ValueError):
        raise ValueError(f"{what} is not numeric ({type(value).__name__})") from None


def clipped_terms(ppo_clipped_terms, ratio, advantages, clip_epsilon):
    """Your ``ppo_clipped_terms`` on a minibatch, checked: three finite arrays shaped like ``ratio``."""
    terms = ppo_clipped_terms(ratio, advantages, clip_epsilon)
    if not isinstance(terms, (tuple, list)) or len(terms) != 3:
        raise ValueError(
            "ppo_clipped_terms must return three arrays (unclipped, clipped, pessimistic), "
            f"it returned {type(terms).__name__}"
        )
    unclipped, clipped, pessimistic = (
        numbers(t, f"ppo_clipped_terms's {name}") for t, name in zip(terms, ("unclipped", "clipped", "pessimistic"))
    )
    if not unclipped.shape == clipped.shape == pessimistic.shape == ratio.shape:
        raise ValueError(
            f"ppo_clipped_terms returned shapes {unclipped.shape}, {clipped.shape}, "
            f"{pessimistic.shape} for {len(ratio)} ratios; each must have shape {ratio.shape}"
        )
    if not (np.all(np.isfinite(unclipped)) and np.all(np.isfinite(pessimistic))):
        raise ValueError("ppo_clipped_terms returned NaN or infinite terms for finite ratios and advantages")
    return unclipped, clipped, pessimistic


def optimised_advantages(advantages, config):
    """The advantages a loss optimises: normalised (zero mean, unit spread) when the
    configuration says so, over the rows given (a minibatch in the loss, the rollout in
    the diagnostics: the same rows when there is one minibatch)."""
    if config.normalize_advantages and len(advantages) > 1:
        return (advantages - advantages.mean()) / (advantages.std() + 1e-8)
    return advantages


@dataclasses.dataclass(frozen=True)
class PPOBatch:
    """One rollout flattened for the updates: ``B = num_steps * num_envs`` rows, each a numpy array.

    ``observations [B, 4]``, ``actions [B]``, and from the rollout the behaviour policy's
    ``log_probs [B]`` and the critic's ``values [B]``; ``advantages [B]`` and ``returns [B]``
    (the value targets), computed once before the first epoch.
    """

    observations: np.ndarray
    actions: np.ndarray
    log_probs: np.ndarray
    values: np.ndarray
    advantages: np.ndarray
    returns: np.ndarray

    def rows(self, index):
        """The minibatch of the rows ``index``."""
        return PPOBatch(**{f.name: getattr(self, f.name)[index] for f in dataclasses.fields(self)})


def loss_and_gradient(params, batch, config, ppo_clipped_terms):
    """The PPO loss of one minibatch and its gradient with respect to every weight.

    The loss (minimised) is ``-mean(pessimistic) + value_coef * value_loss
    - entropy_coef * mean(entropy)``. ``pessimistic`` comes from your
    ``ppo_clipped_terms``; the gradient follows the branch the minimum selected.

    The detach contract: ``batch.advantages`` and ``batch.returns`` (the value
    targets) are constants here. They were computed from the rollout, with the
    critic of that moment, before the first epoch; no gradient flows through them,
    so the actor's gradient does not depend on the critic's weights and the
    critic's target does not move while it is fitted. (In an autograd framework
    this is the ``.detach()`` on advantages and returns; in numpy it is the absence
    of any backward path.)
    """
    obs, actions, old_log_probs, old_values, advantages, returns = (
        batch.observations,
        batch.actions,
        batch.log_probs,
        batch.values,
        batch.advantages,
        batch.returns,
    )
    n = len(actions)
    advantages = optimised_advantages(advantages, config)

    # -- policy: probability ratios and the clipped surrogate
    logits, policy_cache = mlp_forward(params, "policy", obs)
    log_probs_all = log_softmax(logits)
    probs = np.exp(log_probs_all)
    new_log_probs = log_probs_all[np.arange(n), actions]
    ratio = np.exp(new_log_probs - old_log_probs, dtype=float)
    unclipped, clipped, pessimistic = clipped_terms(ppo_clipped_terms, ratio, advantages, config.clip_epsilon)
    # d ratio / d log-prob = ratio. Where the minimum took the unclipped branch r*A
    # its gradient is r*A; where it took the clipped branch clip(r)*A, the gradient
    # is r*A inside the interval and 0 outside (clip is flat there).
    inside = (ratio > 1.0 - config.clip_epsilon) & (ratio < 1.0 + config.clip_epsilon)
    takes_unclipped = pessimistic == unclipped
    d_objective_d_log_prob = np.where(takes_unclipped | inside, ratio * advantages, 0.0)
    entropy = -(probs * log_probs_all).sum(axis=1)
    # d log pi(a) / d logits = onehot(a) - p;  d H / d logits = -p * (log p + H)
    onehot = np.zeros_like(probs)
    onehot[np.arange(n), actions] = 1.0
    grad_logits = (
        -d_objective_d_log_prob[:, None] * (onehot - probs)
        + config.entropy_coef * probs * (log_probs_all + entropy[:, None])
    ) / n

    # -- critic: squared error, pessimistically clipped around the old values
    values, value_cache = mlp_forward(params, "value", obs)
    values = values[:, 0]
    error = values - returns
    if config.value_clip is None:
        value_loss = 0.5 * np.mean(error**2)
        grad_values = error
    else:
        moved = np.clip(values - old_values, -config.value_clip, config.value_clip)
        clipped_error = old_values + moved - returns
        use_clipped = clipped_error**2 > error**2
        value_loss = 0.5 * np.mean(np.where(use_clipped, clipped_error**2, error**2))
        # The clipped branch has zero gradient once the value moved past the clip.
        moved_inside = np.abs(values - old_values) < config.value_clip
        grad_values = np.where(use_clipped, np.where(moved_inside, clipped_error, 0.0), error)
    grad_values = config.value_coef * grad_values[:, None] / n

    grads = {}
    mlp_backward(params, "policy", policy_cache, grad_logits.astype(logits.dtype, copy=False), grads)
    mlp_backward(params, "value", value_cache, grad_values.astype(logits.dtype, copy=False), grads)
    loss = -np.mean(pessimistic) + config.value_coef * value_loss - config.entropy_coef * np.mean(entropy)
    stats = {
        "policy_loss": -float(np.mean(pessimistic)),
        "value_loss": float(value_loss),
        "entropy": float(np.mean(entropy)),
    }
    return float(loss), grads, stats


class Adam:
    """Adam on one flat parameter vector (updated in place)."""

    def __init__(self, size, betas=(0.9, 0.999), epsilon=1e-5):
        self.m = np.zeros(size)
        self.v = np.zeros(size)
        self.beta1, self.beta2 = betas
        self.epsilon = epsilon
        self.t = 0

    def step(self, flat, grad, learning_rate):
        self.t += 1
        self.m = self.beta1 * self.m + (1.0 - self.beta1) * grad
        self.v = self.beta2 * self.v + (1.0 - self.beta2) * grad * grad
        m_hat = self.m / (1.0 - self.beta1**self.t)
        v_hat = self.v / (1.0 - self.beta2**self.t)
        flat -= learning_rate * m_hat / (np.sqrt(v_hat) + self.epsilon)


# ---------------------------------------------------------------------------------------
# Rollouts, advantages, updates
# ---------------------------------------------------------------------------------------
def sample_actions(params, observations, rng):
    """Sample from the policy; return actions and their log-probabilities."""
    log_probs_all = log_softmax(policy_logits(params, observations))
    cumulative = np.cumsum(np.exp(log_probs_all), axis=1)
    actions = (rng.random((len(observations), 1)) > cumulative[:, :-1]).sum(axis=1)
    return actions, log_probs_all[np.arange(len(actions)), actions]


def collect_rollout(params, envs, observations, config, rng):
    """Run the current policy for ``num_steps`` steps in every environment.

    Returns the rollout (arrays of shape ``(num_steps, num_envs, ...)``), the
    observations to continue from, and the returns of the episodes that ended.
    """
    T, N = config.num_steps, config.num_envs
    rollout = {
        "observations": np.zeros((T, N, OBSERVATION_SIZE), dtype=config.dtype),
        "actions": np.zeros((T, N), dtype=np.int64),
        "log_probs": np.zeros((T, N)),
        "values": np.zeros((T, N)),
        "rewards": np.zeros((T, N)),
        "terminated": np.zeros((T, N), dtype=bool),
        "truncated": np.zeros((T, N), dtype=bool),
        "final_observations": np.zeros((T, N, OBSERVATION_SIZE), dtype=config.dtype),
    }
    finished_returns = []
    for t in range(T):
        actions, log_probs = sample_actions(params, observations, rng)
        rollout["observations"][t] = observations
        rollout["actions"][t] = actions
        rollout["log_probs"][t] = log_probs
        rollout["values"][t] = state_values(params, observations)
        observations, rewards, terminated, truncated, info = envs.step(actions)
        rollout["rewards"][t] = rewards
        rollout["terminated"][t] = terminated
        rollout["truncated"][t] = truncated
        # The true last observation, also where the env has already reset itself.
        rollout["final_observations"][t] = info["final_observation"]
        finished_returns.extend(info["episode_return"][terminated | truncated].tolist())
    return rollout, observations, finished_returns


def compute_advantages(params, rollout, config, gae_advantages):
    """Advantages and value targets of a rollout, through your ``gae_advantages``.

    The rollout is laid out environment by environment (one call covers all of
    them), so each environment's stretch ends with a trace cut: the buffer
    boundary. Episode ends inside a stretch are cuts too. ``terminated`` (a fall)
    alone removes the bootstrap; a truncation and the buffer boundary bootstrap
    from the value of the true next observation.
    """
    T, N = config.num_steps, config.num_envs
    next_values = state_values(params, rollout["final_observations"].reshape(T * N, -1)).reshape(T, N).astype(float)
    trace_cuts = rollout["terminated"] | rollout["truncated"]
    trace_cuts[-1, :] = True  # the buffer boundary

    def by_env(a):
        return np.ascontiguousarray(a.T).ravel()  # (T, N) -> env 0's T steps, env 1's, ...

    advantages = gae_advantages(
        by_env(rollout["rewards"]),
        by_env(rollout["values"]),
        by_env(next_values),
        by_env(rollout["terminated"]),
        by_env(trace_cuts),
        gamma=config.gamma,
        gae_lambda=config.gae_lambda,
    )
    advantages = numbers(advantages, "gae_advantages's result")
    if advantages.shape != (T * N,):
        raise ValueError(
            f"gae_advantages returned shape {advantages.shape} for {T * N} transitions; "
            f"it must return one advantage per transition, shape ({T * N},)"
        )
    if not np.all(np.isfinite(advantages)):
        raise ValueError("gae_advantages returned NaN or infinite advantages for finite inputs")
    advantages = advantages.reshape(N, T).T
    return advantages, advantages + rollout["values"]


DIAGNOSTICS = {
    "approx_kl": "approx_kl_nonnegative",
    "active_clip_fraction": "active_clip_fraction",
    "ratio_outside_fraction": "ratio_outside_fraction",
    "mean_log_ratio": "mean_log_ratio",
}


def update_diagnostics(params, batch, config, ppo_diagnostics):
    """What one update did, from your ``ppo_diagnostics`` on the whole rollout.

    The advantages are those the loss optimised (normalised, :func:`optimised_advantages`):
    whether clipping was active on a row depends on its advantage's sign, and
    normalising moves the sign of the rows near the mean.
    """
    log_probs_all = log_softmax(policy_logits(params, batch.observations))
    new_log_probs = log_probs_all[np.arange(len(batch.actions)), batch.actions]
    d = ppo_diagnostics(
        new_log_probs, batch.log_probs, optimised_advantages(batch.advantages, config), config.clip_epsilon
    )
    record = {}
    for key, field in DIAGNOSTICS.items():
        if getattr(d, field, None) is None:
            raise ValueError(f"ppo_diagnostics must return a PPODiagnostics; its result has no {field}")
        value = numbers(getattr(d, field), f"ppo_diagnostics's {field}")
        if value.shape != ():
            raise ValueError(f"ppo_diagnostics's {field} should be one number, it has shape {value.shape}")
        record[key] = float(value)
    return record


def evaluate_policy(params, episodes=10, seed=1_000_003, vector_env=None):
    """Returns of ``episodes`` greedy episodes, copy ``k`` reset with ``seed + k``.

    Parameters
    ----------
    params : dict of numpy.ndarray
        Weights as named by :func:`parameter_shapes` (only the policy is used).
    episodes, seed : int
        Number of episodes and the seed of the first one.
    vector_env : class, optional
        The vectorised environment (default: ``cartpole.VectorCartPole``).

    Returns
    -------
    numpy.ndarray, shape (episodes,)
    """
    if vector_env is None:
        from cartpole import VectorCartPole as vector_env
    envs = vector_env(episodes)
    observations, _ = envs.reset(seed=seed)
    returns = np.zeros(episodes)
    running = np.ones(episodes, dtype=bool)
    while running.any():
        observations, rewards, terminated, truncated, _ = envs.step(greedy_actions(params, observations))
        returns += rewards * running
        running &= ~(terminated | truncated)  # only each copy's first episode counts
    return returns


def train_ppo(config, functions=None, may_stop=None, vector_env=None):
    """Train an actor-critic on CartPole with PPO.

    Parameters
    ----------
    config : PPOConfig
    functions : object, optional
        Has ``gae_advantages``, ``ppo_clipped_terms`` and ``ppo_diagnostics``
        (default: :func:`student_functions`, yours).
    may_stop : callable, optional
        Asked before stopping early (``config.stop_after_solved_evaluations``); a
        run it answers ``False`` goes on (the grader answers ``False`` once one of
        your functions differed from its definition, so such a run trains its whole
        budget).
    vector_env : class, optional
        The vectorised environment (default: ``cartpole.VectorCartPole``).

    Returns
    -------
    dict
        ``parameters`` (the final weights, a dict of arrays), ``history`` (a dict of
        per-update lists: ``update``, ``environment_steps``, the losses, ``entropy``,
        ``approx_kl``, ``active_clip_fraction``, ``ratio_outside_fraction``,
        ``mean_log_ratio``, ``grad_norm`` (losses and norm of the update's last
        minibatch), ``learning_rate``, ``training_return``
        (mean return of the episodes that ended in the rollout, NaN if none),
        ``evaluation_mean``/``evaluation_std`` (NaN between evaluations),
        ``wall_seconds``), ``final_evaluation_mean``, ``final_evaluation_std``,
        ``final_evaluation_returns``, ``environment_steps`` (of the run, shorter than
        the budget when it stopped early), ``stopped_early``, ``wall_seconds``, ``config``.
    """
    if vector_env is None:
        from cartpole import VectorCartPole as vector_env
    functions = functions if functions is not None else student_functions()
    if config.num_updates < 1:
        raise ValueError("total_timesteps is smaller than one rollout (num_envs * num_steps)")
    if config.batch_size % config.num_minibatches:
        raise ValueError("num_envs * num_steps must be divisible by num_minibatches")
    started = time.perf_counter()
    rng = np.random.default_rng(config.seed)
    shapes = parameter_shapes(config.hidden_sizes)
    flat = init_parameters(config.hidden_sizes, rng, config.dtype)
    params = unflatten(flat, shapes)
    optimizer = Adam(flat.size, config.adam_betas, config.adam_epsilon)
    envs = vector_env(config.num_envs)
    observations, _ = envs.reset(seed=config.seed)

    history = {
        key: []
        for key in (
            "update",
            "environment_steps",
            "policy_loss",
            "value_loss",
            "entropy",
            "approx_kl",
            "active_clip_fraction",
            "ratio_outside_fraction",
            "mean_log_ratio",
            "grad_norm",
            "learning_rate",
            "training_return",
            "evaluation_mean",
            "evaluation_std",
            "wall_seconds",
        )
    }
    solved_in_a_row = 0
    for update in range(1, config.num_updates + 1):
        learning_rate = config.learning_rate
        if config.anneal_learning_rate:
            learning_rate *= 1.0 - (update - 1) / config.num_updates

        rollout, observations, finished = collect_rollout(params, envs, observations, config, rng)
        advantages, returns = compute_advantages(params, rollout, config, functions.gae_advantages)
        batch = PPOBatch(
            observations=rollout["observations"].reshape(config.batch_size, OBSERVATION_SIZE),
            actions=rollout["actions"].ravel(),
            log_probs=rollout["log_probs"].ravel(),
            values=rollout["values"].ravel(),
            advantages=advantages.ravel(),
            returns=returns.ravel(),
        )

        for _ in range(config.update_epochs):
            order = rng.permutation(config.batch_size)
            for start in range(0, config.batch_size, config.minibatch_size):
                index = order[start : start + config.minibatch_size]
                minibatch = batch.rows(index)
                _, grads, stats = loss_and_gradient(params, minibatch, config, functions.ppo_clipped_terms)
                grad = flatten(grads, shapes)
                grad_norm = float(np.sqrt(grad @ grad))
                if grad_norm > config.max_grad_norm:
                    grad *= config.max_grad_norm / grad_norm
                optimizer.step(flat, grad, learning_rate)

        record = {
            "update": update,
            "environment_steps": update * config.batch_size,
            **stats,
            **update_diagnostics(params, batch, config, functions.ppo_diagnostics),
            "grad_norm": grad_norm,
            "learning_rate": learning_rate,
            "training_return": float(np.mean(finished)) if finished else float("nan"),
            "evaluation_mean": float("nan"),
            "evaluation_std": float("nan"),
        }
        if update % max(config.evaluation_every, 1) == 0 or update == config.num_updates:
            evaluation = evaluate_policy(params, config.evaluation_episodes, config.evaluation_seed, vector_env)
            record["evaluation_mean"] = float(evaluation.mean())
            record["evaluation_std"] = float(evaluation.std())
            solved_in_a_row = solved_in_a_row + 1 if evaluation.mean() >= SOLVED_RETURN else 0
        record["wall_seconds"] = time.perf_counter() - started
        for key in history:
            history[key].append(record[key])
        stop = config.stop_after_solved_evaluations
        if stop and solved_in_a_row >= stop and (may_stop is None or may_stop()):
            break

    return {
        "parameters": {name: array.copy() for name, array in params.items()},
        "history": history,
        "final_evaluation_mean": float(evaluation.mean()),
        "final_evaluation_std": float(evaluation.std()),
        "final_evaluation_returns": evaluation,
        "environment_steps": update * config.batch_size,
        "stopped_early": update < config.num_updates,
        "wall_seconds": time.perf_counter() - started,
        "config": dataclasses.asdict(config),
    }


def aggregate_training_runs(runs):
    """Median and interquartile evaluation curves over several runs (seeds).

    Runs are aligned on environment steps. A step has a median only where every
    run was evaluated; elsewhere the curves hold NaN.

    Parameters
    ----------
    runs : list of dict
        Results of :func:`train_ppo`.

    Returns
    -------
    dict
        ``environment_steps`` (shape ``(S,)``), ``median``, ``q25``, ``q75`` (shape
        ``(S,)``) and ``all_curves`` (shape ``(len(runs), S)``).
    """
    if not runs:
        raise ValueError("aggregate_training_runs needs at least one run")
    steps = np.unique(np.concatenate([np.asarray(r["history"]["environment_steps"]) for r in runs]))
    curves = np.full((len(runs), len(steps)), np.nan)
    for i, run in enumerate(runs):
        columns = np.searchsorted(steps, run["history"]["environment_steps"])
        curves[i, columns] = run["history"]["evaluation_mean"]
    median, q25, q75 = (np.full(len(steps), np.nan) for _ in range(3))
    complete = np.all(np.isfinite(curves), axis=0)
    if complete.any():
        q25[complete], median[complete], q75[complete] = np.percentile(curves[:, complete], [25, 50, 75], axis=0)
    return {"environment_steps": steps, "median": median, "q25": q25, "q75": q75, "all_curves": curves}


def steps_to_threshold(curve, threshold=SOLVED_RETURN):
    """First environment step at which the median curve reaches ``threshold`` (None if never)."""
    reached = np.flatnonzero(np.nan_to_num(curve["median"], nan=-np.inf) >= threshold)
    return int(curve["environment_steps"][reached[0]]) if reached.size else None


# ---------------------------------------------------------------------------------------
# The graded lab
# ---------------------------------------------------------------------------------------
def cartpole_ppo_lab(seed, profile="smoke", functions=None, may_stop=None, vector_env=None):
    """The graded run: train PPO on CartPole with your functions (:func:`graded_config`).

    The grader calls this in its own process, with ``functions`` that call yours
    across its process boundary; it rebuilds the greedy policy from ``weights`` and
    evaluates it on its own CartPole with seeds of its own, so the score is the
    return the weights earn.

    Parameters
    ----------
    seed : int
        Seed of the training run.
    profile : {"smoke", "full"}
        Training budget (see :func:`profile_config`); the run stops early once solved.
    functions, may_stop, vector_env
        As for :func:`train_ppo`.

    Returns
    -------
    dict
        ``weights`` (name -> float64 array, see :func:`parameter_shapes`),
        ``history`` (name -> list of floats), ``environment_steps`` (int) and
        ``stopped_early`` (bool).
    """
    result = train_ppo(graded_config(profile, seed=seed), functions, may_stop, vector_env)
    return {
        "weights": result["parameters"],
        "history": {key: [float(v) for v in values] for key, values in result["history"].items()},
        "environment_steps": int(result["environment_steps"]),
        "stopped_early": bool(result["stopped_early"]),
    }
