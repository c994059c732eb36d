# Course-provided code: you do not need to change this file.
# Generated from the course's reference solutions by `grader stubs`.
"""A tiny autoregressive policy trained with RLOO advantages and token-level PPO.

A small GRU reads one of three prompts and generates a response one token at a
time: the right answer is two symbols followed by EOS. A deterministic verifier
scores each response (partial credit per correct symbol, credit for stopping at
the right place); the reward is not differentiable. For each prompt a group of
responses is sampled, leave-one-out baselines turn rewards into advantages, the
token log-probabilities of the sampling policy are frozen, and several epochs of
token-level clipped PPO update the policy.

The steps a student implements are passed in as ``functions`` (by default imported
from the student's own modules: ``response_token_mask`` and the two PPO functions
from ``response_tokens``, ``leave_one_out_baselines`` from ``group_baselines``);
everything else (the policy, its backpropagation, sampling, the verifier, Adam)
is course code. They receive plain arrays and numbers and never see the policy or
the optimiser: the grader runs this same loop in its own process and passes
functions that call the student's across its process boundary.

Layout of a batch: ``input_ids[b]`` holds the prompt (BOS first), the generated
response, its EOS, then PAD up to ``T``. Logits at column ``k`` score the label
``input_ids[b, k + 1]``, so per-token arrays have shape ``[B, T - 1]``. The policy
can only emit EOS and the answer symbols; a label it cannot emit (a prompt token
or PAD) gets log-probability 0.0 and no gradient, and the response mask must
remove it.

Every hyperparameter is a field of the frozen :class:`SequenceConfig`;
:func:`sequence_profile_config` gives the two named budgets, and
:func:`train_tiny_sequence_policy` takes the configuration.

Examples
--------
>>> run = train_tiny_sequence_policy(sequence_profile_config("smoke", seed=5))   # doctest: +SKIP
>>> run["final_evaluation"]["success_rate"]                                       # doctest: +SKIP
1.0
"""

import dataclasses
import numbers
import time
import types

import numpy as np

# -- vocabulary ------------------------------------------------------------------------
TOKENS = ("<pad>", "<bos>", "<eos>", "x", "y", "z", "?", "A", "B", "C", "D")
PAD_ID, BOS_ID, EOS_ID = 0, 1, 2
VOCAB_SIZE = len(TOKENS)
_ID = {name: i for i, name in enumerate(TOKENS)}

# Three prompts of different lengths (BOS included): each row's response starts at
# its own column, so the mask has to follow prompt_lengths row by row.
PROMPTS = (
    (BOS_ID, _ID["x"]),
    (BOS_ID, _ID["y"], _ID["?"]),
    (BOS_ID, _ID["z"], _ID["?"], _ID["?"]),
)
# Each correct symbol appears once first and once second, so no symbol is favoured
# across prompts; D is never right.
ANSWERS = (
    (_ID["A"], _ID["B"]),
    (_ID["B"], _ID["C"]),
    (_ID["C"], _ID["A"]),
)
NUM_PROMPTS = len(PROMPTS)

# The policy's output layer scores only the tokens it may generate.
ACTION_TOKENS = (EOS_ID, _ID["A"], _ID["B"], _ID["C"], _ID["D"])
NUM_ACTIONS = len(ACTION_TOKENS)
TOKEN_TO_ACTION = np.full(VOCAB_SIZE, -1, dtype=int)
TOKEN_TO_ACTION[list(ACTION_TOKENS)] = np.arange(NUM_ACTIONS)

# Reward of the verifier: SYMBOL_CREDIT per correct answer symbol, STOP_CREDIT for
# an EOS right after the second symbol. A perfect response earns 1.0.
SYMBOL_CREDIT = 0.3
STOP_CREDIT = 0.4
MAX_NEW_TOKENS = 4

WEIGHT_NAMES = ("input_gates", "recurrent_update_reset", "recurrent_candidate", "output_weights", "output_bias")
REDUCTIONS = ("token_mean", "sequence_mean", "sequence_sum_mean")


# -- the verifier and decoding ------------------------------------------------------------
def decode_sequence(ids) -> str:
    """Readable text of a row of token ids; padding is left out.

    Examples
    --------
    >>> decode_sequence([1, 3, 7, 8, 2, 0, 0])
    '<bos> x A B <eos>'
    """
    return " ".join(TOKENS[int(i)] for i in np.asarray(ids).ravel() if int(i) != PAD_ID)


def response_of(row, prompt_length: int) -> tuple:
    """The generated tokens of one row: from the end of the prompt to the first EOS (kept).

    A response without EOS runs to the first PAD or the end of the row.
    """
    out = []
    for token in np.asarray(row)[int(prompt_length) :]:
        token = int(token)
        if token == PAD_ID:
            break
        out.append(token)
        if token == EOS_ID:
            break
    return tuple(out)


def verify_response(prompt_class: int, response) -> tuple[float, bool]:
    """Reward and exact success of one response (a sequence of generated token ids).

    Each of the two answer positions holding the right symbol earns ``SYMBOL_CREDIT``;
    an EOS as the third generated token earns ``STOP_CREDIT``. Success means the
    response is exactly the answer followed by EOS.

    Examples
    --------
    >>> verify_response(0, [7, 8, 2])
    (1.0, True)
    >>> verify_response(0, [7, 9, 9, 2])
    (0.3, False)
    """
    response = tuple(int(t) for t in response)
    answer = ANSWERS[int(prompt_class)]
    reward = 0.0
    for position, symbol in enumerate(answer):
        if position < len(response) and response[position] == symbol:
            reward += SYMBOL_CREDIT
    if len(response) > len(answer) and response[len(answer)] == EOS_ID:
        reward += STOP_CREDIT
    return round(reward, 10), response == answer + (EOS_ID,)


def score_rows(input_ids, prompt_lengths, prompt_classes) -> tuple[np.ndarray, np.ndarray]:
    """Verifier rewards and exact successes of a whole batch, read from the token ids."""
    rewards, success = [], []
    for row, length, cls in zip(np.asarray(input_ids), np.asarray(prompt_lengths), np.asarray(prompt_classes)):
        reward, ok = verify_response(int(cls), response_of(row, int(length)))
        rewards.append(reward)
        success.append(ok)
    return np.asarray(rewards, dtype=float), np.asarray(success, dtype=bool)


# -- the policy ---------------------------------------------------------------------------
def _sigmoid(x):
    return 0.5 * (1.0 + np.tanh(0.5 * x))  # no overflow warnings for large |x|


class TinyGRUPolicy:
    """A one-layer GRU over token ids with a softmax over the generatable tokens.

    Weights (``H`` = hidden size): ``input_gates [V, 3H]`` (each token's input to the
    update, reset and candidate gates, biases included), ``recurrent_update_reset
    [H, 2H]``, ``recurrent_candidate [H, H]``, ``output_weights [H, NUM_ACTIONS]`` and
    ``output_bias [NUM_ACTIONS]``.
    """

    def __init__(self, weights: dict):
        self.weights = {name: np.array(weights[name], dtype=float) for name in WEIGHT_NAMES}

    @property
    def hidden_size(self) -> int:
        return self.weights["recurrent_candidate"].shape[0]

    def step(self, token_ids, h):
        """One GRU step; returns the new hidden state and what backpropagation needs."""
        w = self.weights
        size = h.shape[1]
        gates_in = w["input_gates"][token_ids]
        update_reset = _sigmoid(gates_in[:, : 2 * size] + h @ w["recurrent_update_reset"])
        z, r = update_reset[:, :size], update_reset[:, size:]
        reset_h = r * h
        n = np.tanh(gates_in[:, 2 * size :] + reset_h @ w["recurrent_candidate"])
        h_new = (1.0 - z) * n + z * h
        return h_new, (token_ids, h, z, r, reset_h, n)

    def action_logits(self, h):
        return h @ self.weights["output_weights"] + self.weights["output_bias"]

    def initial_state(self, batch: int):
        return np.zeros((batch, self.hidden_size))


def policy_weight_shapes(hidden_size: int) -> dict:
    """The shape of every weight of a policy with ``hidden_size`` hidden units."""
    h = int(hidden_size)
    return {
        "input_gates": (VOCAB_SIZE, 3 * h),
        "recurrent_update_reset": (h, 2 * h),
        "recurrent_candidate": (h, h),
        "output_weights": (h, NUM_ACTIONS),
        "output_bias": (NUM_ACTIONS,),
    }


def init_policy(hidden_size: int, rng: np.random.Generator) -> TinyGRUPolicy:
    """A freshly initialised policy: scaled Gaussian weights and a zero output layer,
    so every first response is uniformly random."""
    shapes = policy_weight_shapes(hidden_size)
    weights = {
        "input_gates": rng.normal(0.0, 1.0, shapes["input_gates"]),
        "recurrent_update_reset": rng.normal(0.0, 1.0 / np.sqrt(hidden_size), shapes["recurrent_update_reset"]),
        "recurrent_candidate": rng.normal(0.0, 1.0 / np.sqrt(hidden_size), shapes["recurrent_candidate"]),
        "output_weights": np.zeros(shapes["output_weights"]),
        "output_bias": np.zeros(shapes["output_bias"]),
    }
    return TinyGRUPolicy(weights)


def policy_weights(model: TinyGRUPolicy) -> dict:
    """The weights of ``model`` as a dict of fresh float arrays (plain data)."""
    return {name: np.array(model.weights[name], dtype=float) for name in WEIGHT_NAMES}


def check_policy_weights(weights, hidden_size: int | None = None) -> list[str]:
    """Problems that keep ``weights`` from being a policy, as readable sentences (empty if none)."""
    if not isinstance(weights, dict):
        return [f"the weights should be a dict of numpy arrays, not {type(weights).__name__}"]
    missing = [n for n in WEIGHT_NAMES if n not in weights]
    extra = sorted(str(n) for n in weights if n not in WEIGHT_NAMES)
    problems = []
    if missing:
        problems.append(f"the weights lack {', '.join(missing)}")
    if extra:
        problems.append(f"the weights hold unknown entries {', '.join(extra)}")
    if problems:
        return problems
    arrays = {}
    for name in WEIGHT_NAMES:
        value = weights[name]
        if not isinstance(value, np.ndarray) or value.dtype.kind not in "fiu":
            problems.append(f"weight {name} should be a numeric numpy array, not {type(value).__name__}")
            continue
        arrays[name] = value
    if problems:
        return problems
    if hidden_size is None:
        candidate = arrays["recurrent_candidate"]
        hidden_size = candidate.shape[0] if candidate.ndim == 2 else 0
    for name, shape in policy_weight_shapes(hidden_size).items():
        if arrays[name].shape != shape:
            problems.append(f"weight {name} has shape {arrays[name].shape}, expected {shape}")
        elif not np.all(np.isfinite(arrays[name])):
            problems.append(f"weight {name} contains NaN or infinite values (the training diverged)")
    return problems


def policy_from_weights(weights, hidden_size: int | None = None) -> TinyGRUPolicy:
    """Rebuild a policy from :func:`policy_weights` output.

    Raises
    ------
    ValueError
        Naming every problem: a missing or unknown entry, a wrong shape or type,
        a non-finite value.
    """
    problems = check_policy_weights(weights, hidden_size)
    if problems:
        raise ValueError("; ".join(problems))
    return TinyGRUPolicy(weights)


# -- teacher-forced log-probabilities and their gradient -------------------------------------
_ONE_HOT = np.eye(VOCAB_SIZE)


def _log_softmax(logits):
    shifted = logits - logits.max(axis=-1, keepdims=True)
    return shifted - np.log(np.exp(shifted).sum(axis=-1, keepdims=True))


def token_log_probs(model: TinyGRUPolicy, input_ids, *, keep_cache: bool = False):
    """Log-probability of every label ``input_ids[:, k + 1]`` under ``model``: shape ``[B, T - 1]``.

    Labels the policy cannot emit (prompt tokens, PAD) get 0.0. With ``keep_cache``
    also returns what :func:`log_prob_gradients` needs.
    """
    ids = np.asarray(input_ids)
    batch, length = ids.shape
    h = model.initial_state(batch)
    labels = TOKEN_TO_ACTION[ids[:, 1:]]
    emittable = labels >= 0
    out = np.zeros((batch, length - 1))
    steps = []
    for k in range(length - 1):
        h, cache = model.step(ids[:, k], h)
        log_p = _log_softmax(model.action_logits(h))
        out[:, k] = np.where(emittable[:, k], log_p[np.arange(batch), np.maximum(labels[:, k], 0)], 0.0)
        if keep_cache:
            steps.append((cache, h, log_p))
    if keep_cache:
        return out, (labels, emittable, steps)
    return out


def token_entropies(cache) -> np.ndarray:
    """Entropy of the policy's next-token distribution at every column, ``[B, T - 1]``."""
    _, _, steps = cache
    return np.stack([-np.sum(np.exp(log_p) * log_p, axis=1) for _, _, log_p in steps], axis=1)


def log_prob_gradients(model: TinyGRUPolicy, cache, grad_log_probs, grad_entropy=None) -> dict:
    """Backpropagation through time of ``sum(grad_log_probs * log_probs + grad_entropy * entropies)``.

    Returns its gradient w.r.t. each weight. ``grad_log_probs`` and ``grad_entropy``
    have shape ``[B, T - 1]``; columns whose label the policy cannot emit carry no
    gradient.
    """
    labels, emittable, steps = cache
    w = model.weights
    size = model.hidden_size
    g = np.where(emittable, np.asarray(grad_log_probs, dtype=float), 0.0)
    g_ent = None if grad_entropy is None else np.where(emittable, np.asarray(grad_entropy, dtype=float), 0.0)
    grads = {name: np.zeros_like(w[name]) for name in WEIGHT_NAMES}
    batch = g.shape[0]
    rows = np.arange(batch)
    dh_next = np.zeros((batch, size))
    for k in range(len(steps) - 1, -1, -1):
        (token_ids, h_prev, z, r, reset_h, n), h, log_p = steps[k]
        # d log softmax[label] / d logits = onehot(label) - softmax.
        d_logits = -np.exp(log_p) * g[:, k : k + 1]
        d_logits[rows, np.maximum(labels[:, k], 0)] += g[:, k]
        if g_ent is not None:
            # d H / d logits_j = -p_j (log p_j + H).
            p = np.exp(log_p)
            entropy = -np.sum(p * log_p, axis=1, keepdims=True)
            d_logits -= g_ent[:, k : k + 1] * p * (log_p + entropy)
        grads["output_weights"] += h.T @ d_logits
        grads["output_bias"] += d_logits.sum(axis=0)
        dh = d_logits @ w["output_weights"].T + dh_next
        dn = dh * (1.0 - z)
        dz = dh * (h_prev - n)
        dh_prev = dh * z
        da_n = dn * (1.0 - n * n)
        grads["recurrent_candidate"] += reset_h.T @ da_n
        d_reset_h = da_n @ w["recurrent_candidate"].T
        dr = d_reset_h * h_prev
        dh_prev += d_reset_h * r
        da_zr = np.concatenate([dz * z * (1.0 - z), dr * r * (1.0 - r)], axis=1)
        grads["recurrent_update_reset"] += h_prev.T @ da_zr
        dh_prev += da_zr @ w["recurrent_update_reset"].T
        grads["input_gates"] += _ONE_HOT[token_ids].T @ np.concatenate([da_zr, da_n], axis=1)
        dh_next = dh_prev
    return grads


# -- sampling --------------------------------------------------------------------------------
@dataclasses.dataclass
class SequenceBatch:
    """One rollout: ``B = NUM_PROMPTS * group_size`` rows, grouped by prompt.

    Attributes are numpy arrays: ``prompt_classes [B]``, ``prompt_lengths [B]``,
    ``input_ids [B, T]``, ``rewards [B]``, ``success [B]``; after the training step
    has filled them, ``advantages [B]``, ``response_mask [B, T - 1]`` and
    ``old_log_probs [B, T - 1]``.
    """

    prompt_classes: np.ndarray
    prompt_lengths: np.ndarray
    input_ids: np.ndarray
    rewards: np.ndarray
    success: np.ndarray
    sample_log_probs: np.ndarray
    advantages: np.ndarray | None = None
    response_mask: np.ndarray | None = None
    old_log_probs: np.ndarray | None = None


def sequence_length(max_new_tokens: int = MAX_NEW_TOKENS) -> int:
    """Columns ``T`` of a batch: the longest prompt plus the response budget."""
    return max(len(p) for p in PROMPTS) + int(max_new_tokens)


def sample_responses(
    model: TinyGRUPolicy,
    samples_per_prompt: int,
    rng: np.random.Generator | None,
    *,
    deterministic: bool = False,
    max_new_tokens: int = MAX_NEW_TOKENS,
) -> SequenceBatch:
    """Generate ``samples_per_prompt`` responses to every prompt (greedy if ``deterministic``).

    A row stops at its first EOS; the rest of the row is PAD. ``sample_log_probs``
    holds the log-probability of each generated token (aligned like the labels).
    """
    if not deterministic and rng is None:
        raise ValueError("sampling needs a random generator")
    g = int(samples_per_prompt)
    width = sequence_length(max_new_tokens)
    ids = np.full((NUM_PROMPTS * g, width), PAD_ID, dtype=np.int64)
    sample_lp = np.zeros((NUM_PROMPTS * g, width - 1))
    classes = np.repeat(np.arange(NUM_PROMPTS), g)
    lengths = np.repeat([len(p) for p in PROMPTS], g)
    for cls, prompt in enumerate(PROMPTS):
        rows = slice(cls * g, (cls + 1) * g)
        ids[rows, : len(prompt)] = prompt
        h = model.initial_state(g)
        for pos in range(len(prompt)):
            h, _ = model.step(ids[rows, pos], h)
        done = np.zeros(g, dtype=bool)
        for step in range(int(max_new_tokens)):
            pos = len(prompt) + step
            log_p = _log_softmax(model.action_logits(h))
            if deterministic:
                actions = np.argmax(log_p, axis=1)
            else:
                # Inverse-CDF sampling: one uniform per row keeps the stream of draws simple.
                cdf = np.cumsum(np.exp(log_p), axis=1)
                u = rng.random(g)[:, None] * cdf[:, -1:]
                actions = np.minimum((u >= cdf).sum(axis=1), NUM_ACTIONS - 1)
            tokens = np.asarray(ACTION_TOKENS)[actions]
            tokens = np.where(done, PAD_ID, tokens)
            ids[rows, pos] = tokens
            sample_lp[rows, pos - 1] = np.where(done, 0.0, log_p[np.arange(g), actions])
            done |= tokens == EOS_ID
            if done.all():
                break
            h, _ = model.step(tokens, h)
    rewards, success = score_rows(ids, lengths, classes)
    return SequenceBatch(classes, lengths, ids, rewards, success, sample_lp)


def evaluate_sequence_policy(
    model: TinyGRUPolicy,
    samples_per_prompt: int = 1,
    deterministic: bool = True,
    seed: int = 0,
    max_new_tokens: int = MAX_NEW_TOKENS,
) -> dict:
    """Responses of ``model`` to every prompt, judged by the verifier.

    Returns
    -------
    dict
        ``prompt_classes``, ``prompt_lengths``, ``input_ids``, ``rewards`` and
        ``success`` (arrays, one row per response), ``mean_reward`` and
        ``success_rate`` (floats).
    """
    rng = None if deterministic else np.random.default_rng(seed)
    batch = sample_responses(model, samples_per_prompt, rng, deterministic=deterministic, max_new_tokens=max_new_tokens)
    return {
        "prompt_classes": batch.prompt_classes,
        "prompt_lengths": batch.prompt_lengths,
        "input_ids": batch.input_ids,
        "rewards": batch.rewards,
        "success": batch.success,
        "mean_reward": float(np.mean(batch.rewards)),
        "success_rate": float(np.mean(batch.success)),
    }


# -- the student's functions -------------------------------------------------------------------
def student_functions():
    """Your four functions, from the flat modules on ``sys.path`` (your folder, or solutions/)."""
    from group_baselines import leave_one_out_baselines
    from response_tokens import masked_token_ppo_objective, masked_token_ppo_terms, response_token_mask

    return types.SimpleNamespace(
        response_token_mask=response_token_mask,
        leave_one_out_baselines=leave_one_out_baselines,
        masked_token_ppo_terms=masked_token_ppo_terms,
        masked_token_ppo_objective=masked_token_ppo_objective,
    )


def rloo_advantages(rewards, prompt_classes, leave_one_out_baselines) -> np.ndarray:
    """Per prompt group, reward minus the leave-one-out baseline of ``leave_one_out_baselines``."""
    rewards = np.asarray(rewards, dtype=float)
    advantages = np.zeros_like(rewards)
    for cls in np.unique(prompt_classes):
        rows = np.flatnonzero(prompt_classes == cls)
        try:
            baselines = np.asarray(leave_one_out_baselines(rewards[rows]), dtype=float)
        except (TypeError, ValueError):
            raise ValueError("leave_one_out_baselines returned something that is not numeric") from None
        if baselines.shape != rows.shape:
            raise ValueError(f"leave_one_out_baselines returned shape {baselines.shape} for {len(rows)} rewards")
        if not np.all(np.isfinite(baselines)):
            raise ValueError("leave_one_out_baselines returned NaN or infinite baselines for finite rewards")
        advantages[rows] = rewards[rows] - baselines
    return advantages


def reduction_weights(mask, reduction: str) -> np.ndarray:
    """Weight of each token's pessimistic term in the reduced objective (the normaliser)."""
    active = np.asarray(mask, dtype=float) != 0
    if not active.any():
        return np.zeros(active.shape)
    if reduction == "token_mean":
        return active / active.sum()
    if reduction == "sequence_sum_mean":
        return active / active.shape[0]
    if reduction == "sequence_mean":
        counts = active.sum(axis=1, keepdims=True)
        return np.divide(active, counts * active.shape[0], out=np.zeros(active.shape), where=counts > 0)
    raise ValueError(f"unknown reduction {reduction!r}; expected one of {', '.join(REDUCTIONS)}")


def ppo_log_prob_gradient(ratio, unclipped, clipped, pessimistic, clip_epsilon, weights) -> np.ndarray:
    """Gradient of the reduced clipped objective w.r.t. the new token log-probabilities.

    ``d(r A) / d log pi = r A``, the unclipped term itself. The pessimistic term follows
    the unclipped branch wherever it equals it; where the clipped branch was chosen it
    depends on the new policy only while the ratio is inside the clip interval (there
    it equals ``r A`` too), and is flat outside. Everything is read from the terms the
    student's function returned, so a wrong branch choice changes the update.
    """
    ratio = np.asarray(ratio, dtype=float)
    unclipped = np.asarray(unclipped, dtype=float)
    clipped = np.asarray(clipped, dtype=float)
    pessimistic = np.asarray(pessimistic, dtype=float)
    inside = (ratio > 1.0 - clip_epsilon) & (ratio < 1.0 + clip_epsilon)
    # Closeness rather than equality: a student may form the minimum another way.
    follows_unclipped = np.isclose(pessimistic, unclipped, rtol=1e-9, atol=1e-12)
    follows_clipped = np.isclose(pessimistic, clipped, rtol=1e-9, atol=1e-12)
    grad = np.where(follows_unclipped, unclipped, np.where(inside & follows_clipped, clipped, 0.0))
    return weights * grad


def _ppo_terms(terms_fn, new, old, advantages, mask, clip_epsilon):
    terms = terms_fn(new, old, advantages, mask, clip_epsilon=clip_epsilon)
    if not isinstance(terms, (tuple, list)) or len(terms) != 4:
        raise ValueError("masked_token_ppo_terms must return (ratio, unclipped, clipped, pessimistic)")
    arrays = []
    for name, term in zip(("ratio", "unclipped", "clipped", "pessimistic"), terms):
        try:
            array = np.asarray(term, dtype=float)
        except (TypeError, ValueError):
            raise ValueError(f"masked_token_ppo_terms returned a {name} that is not numeric") from None
        if array.shape != new.shape:
            raise ValueError(f"masked_token_ppo_terms returned {name} of shape {array.shape}, expected {new.shape}")
        if not np.all(np.isfinite(array)):
            raise ValueError(f"masked_token_ppo_terms returned NaN or infinite values in {name}")
        arrays.append(array)
    return arrays


def _objective(objective_fn, new, batch, clip_epsilon, reduction):
    value = objective_fn(
        new, batch.old_log_probs, batch.advantages, batch.response_mask, clip_epsilon=clip_epsilon, reduction=reduction
    )
    try:
        value = np.asarray(value, dtype=float)
    except (TypeError, ValueError):
        raise ValueError("masked_token_ppo_objective returned something that is not a number") from None
    if value.shape != ():
        raise ValueError(f"masked_token_ppo_objective returned shape {value.shape}; the objective is one number")
    return float(value)


class _Adam:
    """Adam ascending the objective (course code: the student's functions give the direction)."""

    def __init__(self, weights, learning_rate, beta1=0.9, beta2=0.999, eps=1e-8):
        self.lr, self.beta1, self.beta2, self.eps = learning_rate, beta1, beta2, eps
        self.m = {k: np.zeros_like(v) for k, v in weights.items()}
        self.v = {k: np.zeros_like(v) for k, v in weights.items()}
        self.t = 0

    def ascend(self, weights, grads):
        self.t += 1
        c1 = 1.0 - self.beta1**self.t
        c2 = 1.0 - self.beta2**self.t
        for name, g in grads.items():
            self.m[name] = self.beta1 * self.m[name] + (1.0 - self.beta1) * g
            self.v[name] = self.beta2 * self.v[name] + (1.0 - self.beta2) * g * g
            weights[name] += self.lr * (self.m[name] / c1) / (np.sqrt(self.v[name] / c2) + self.eps)


# -- training ----------------------------------------------------------------------------------
@dataclasses.dataclass(frozen=True)
class SequenceConfig:
    """Every hyperparameter of one training run (see :func:`sequence_profile_config`).

    The defaults are the smoke profile. Several PPO epochs with a large step make the
    clip matter: without the pessimistic minimum the policy overshoots and locks onto
    a wrong response. A field out of its range raises a ValueError naming it.
    """

    seed: int = 0  # initial weights and every sampled response; the evaluations draw from seed + 1
    # -- data collection
    iterations: int = 60  # rollouts of the run, each followed by ppo_epochs updates
    group_size: int = 16  # responses sampled per prompt; batch = NUM_PROMPTS * group_size rows
    max_new_tokens: int = MAX_NEW_TOKENS  # response budget, EOS included
    # -- optimisation (Adam ascending the objective, one full-batch step per epoch)
    ppo_epochs: int = 8  # passes over each rollout
    learning_rate: float = 0.04
    # Linearly to zero over the run: late steps stay small, so a rare bad sample in a
    # solved group cannot undo the policy.
    anneal_learning_rate: bool = True
    adam_betas: tuple = (0.9, 0.999)
    adam_epsilon: float = 1e-8
    max_grad_norm: float | None = 1.0  # global norm over all weights (None: no clipping)
    # -- objective
    clip_epsilon: float = 0.2  # token ratio interval [1 - eps, 1 + eps]
    reduction: str = "token_mean"  # how token terms are averaged: one of REDUCTIONS
    # Weight of an entropy bonus on the response tokens. It keeps a group from collapsing onto
    # one wrong response before the right one is sampled (identical rewards leave RLOO without
    # signal), and fades linearly to zero over the first entropy_decay fraction of the run
    # (0: no bonus), so the final policy can be sharp.
    entropy_coef: float = 0.04
    entropy_decay: float = 0.6
    # -- policy
    hidden_size: int = 24  # GRU units
    # -- evaluation (before training, every evaluation_every iterations and after the last one)
    evaluation_every: int = 2
    evaluation_samples: int = 32  # sampled responses per prompt; 1: one greedy response

    def __post_init__(self):
        """Refuse a field out of its range with a ValueError naming it (a copy made by replace too)."""

        def integer(value, smallest):
            return isinstance(value, numbers.Integral) and not isinstance(value, bool) and value >= smallest

        def real(value):
            return isinstance(value, numbers.Real) and not isinstance(value, bool) and bool(np.isfinite(value))

        betas = self.adam_betas
        checks = (
            ("seed", integer(self.seed, 0), "an integer >= 0"),
            ("iterations", integer(self.iterations, 1), "an integer >= 1"),
            (
                "group_size",
                integer(self.group_size, 2),
                "an integer >= 2 (a leave-one-out baseline needs another response of the group)",
            ),
            ("max_new_tokens", integer(self.max_new_tokens, 1), "an integer >= 1"),
            ("ppo_epochs", integer(self.ppo_epochs, 1), "an integer >= 1"),
            ("learning_rate", real(self.learning_rate) and self.learning_rate > 0, "a number > 0"),
            ("anneal_learning_rate", isinstance(self.anneal_learning_rate, bool), "True or False"),
            (
                "adam_betas",
                isinstance(betas, tuple) and len(betas) == 2 and all(real(b) and 0 <= b < 1 for b in betas),
                "a pair of numbers in [0, 1)",
            ),
            ("adam_epsilon", real(self.adam_epsilon) and self.adam_epsilon > 0, "a number > 0"),
            (
                "max_grad_norm",
                self.max_grad_norm is None or (real(self.max_grad_norm) and self.max_grad_norm > 0),
                "a number > 0 or None",
            ),
            ("clip_epsilon", real(self.clip_epsilon) and 0 < self.clip_epsilon < 1, "a number in (0, 1)"),
            ("reduction", self.reduction in REDUCTIONS, f"one of {', '.join(REDUCTIONS)}"),
            ("entropy_coef", real(self.entropy_coef) and self.entropy_coef >= 0, "a number >= 0"),
            ("entropy_decay", real(self.entropy_decay) and self.entropy_decay >= 0, "a number >= 0"),
            ("hidden_size", integer(self.hidden_size, 1), "an integer >= 1"),
            ("evaluation_every", integer(self.evaluation_every, 1), "an integer >= 1"),
            ("evaluation_samples", integer(self.evaluation_samples, 1), "an integer >= 1"),
        )
        for name, ok, expected in checks:
            if not ok:
                raise ValueError(f"SequenceConfig.{name} must be {expected}, got {getattr(self, name)!r}")


PROFILES = {
    # The defaults: well under a second of computation per seed (CI, grading).
    "smoke": dict(),
    # Longer, with larger groups and a larger policy; evaluated every iteration, with more samples.
    "full": dict(
        iterations=150, group_size=24, learning_rate=0.03, hidden_size=32, evaluation_every=1, evaluation_samples=64
    ),
}


def sequence_profile_config(profile: str = "smoke", seed: int = 0, **overrides) -> SequenceConfig:
    """The configuration of a named budget.

    Parameters
    ----------
    profile : {"smoke", "full"}
        ``smoke`` is the quick check (well under a second of computation per seed);
        ``full`` trains longer with larger groups and evaluates with more samples.
    seed : int
        Seed of the run (initial weights, sampled responses; the evaluations use ``seed + 1``).
    **overrides
        Any other :class:`SequenceConfig` field.

    Returns
    -------
    SequenceConfig
        Frozen; change a copy with ``dataclasses.replace``.
    """
    name = str(profile).strip().lower()
    if name not in PROFILES:
        raise ValueError(f"unknown profile {profile!r}; expected one of {', '.join(PROFILES)}")
    return SequenceConfig(seed=int(seed), **{**PROFILES[name], **overrides})


def graded_sequence_config(profile: str = "smoke", seed: int = 0) -> SequenceConfig:
    """The configuration of a graded run: ``profile``'s budget, evaluated only before and after training
    (the grader evaluates the weights itself)."""
    config = sequence_profile_config(profile, seed=seed)
    return dataclasses.replace(config, evaluation_every=config.iterations)


def train_tiny_sequence_policy(config: SequenceConfig, functions=None, verbose: bool = False) -> dict:
    """Train the tiny policy with RLOO advantages and token-level clipped PPO.

    Each iteration samples ``group_size`` responses per prompt, scores them with the
    verifier, builds the response mask (student's ``response_token_mask``, generated
    EOS included) and leave-one-out advantages (student's ``leave_one_out_baselines``),
    freezes the token log-probabilities, then runs ``ppo_epochs`` full-batch Adam
    steps on the clipped objective of the student's ``masked_token_ppo_terms`` (its
    value from ``masked_token_ppo_objective``).

    Parameters
    ----------
    config : SequenceConfig
        Every hyperparameter; the same configuration (seed included) gives the same run.
    functions : object, optional
        Has ``response_token_mask``, ``leave_one_out_baselines``,
        ``masked_token_ppo_terms`` and ``masked_token_ppo_objective`` (default:
        :func:`student_functions`, yours).
    verbose : bool
        Print one line per evaluation (silent by default).

    Returns
    -------
    dict
        ``history`` (lists ``iteration``, ``evaluation_mean_reward``, ``success_rate``,
        ``batch_mean_reward``, ``objective``, ``clip_fraction``), ``model``,
        ``first_batch`` (the first :class:`SequenceBatch`), ``final_evaluation``
        (``mean_reward``, ``success_rate``), ``seconds`` and ``config`` (as a dict).
    """
    if not isinstance(config, SequenceConfig):
        raise TypeError(f"config must be a SequenceConfig (see sequence_profile_config), not {type(config).__name__}")
    functions = functions if functions is not None else student_functions()
    started = time.perf_counter()
    rng = np.random.default_rng(config.seed)
    model = init_policy(config.hidden_size, rng)
    optimizer = _Adam(model.weights, config.learning_rate, *config.adam_betas, config.adam_epsilon)
    history = {
        key: []
        for key in (
            "iteration",
            "evaluation_mean_reward",
            "success_rate",
            "batch_mean_reward",
            "objective",
            "clip_fraction",
        )
    }
    # The evaluation draws from its own generator, so evaluating never changes the training run.
    eval_kwargs = dict(
        samples_per_prompt=config.evaluation_samples,
        deterministic=config.evaluation_samples == 1,
        seed=config.seed + 1,
        max_new_tokens=config.max_new_tokens,
    )

    def record(iteration, objective=np.nan, clip_fraction=np.nan, batch_reward=np.nan):
        evaluation = evaluate_sequence_policy(model, **eval_kwargs)
        for key, value in (
            ("iteration", iteration),
            ("evaluation_mean_reward", evaluation["mean_reward"]),
            ("success_rate", evaluation["success_rate"]),
            ("batch_mean_reward", batch_reward),
            ("objective", objective),
            ("clip_fraction", clip_fraction),
        ):
            history[key].append(value if key == "iteration" else float(value))
        if verbose:
            print(
                f"iteration {iteration:4d} | evaluation reward {evaluation['mean_reward']:.3f} | "
                f"success {evaluation['success_rate']:.2f}"
            )
        return evaluation

    evaluation = record(0)
    first_batch = None
    for iteration in range(1, config.iterations + 1):
        batch = sample_responses(model, config.group_size, rng, max_new_tokens=config.max_new_tokens)
        # The generated EOS counts: response_token_mask's default include_eos=True, asked without the keyword
        # so that the module's own response_token_mask (which has no include_eos) trains the lab too.
        batch.response_mask = np.asarray(
            functions.response_token_mask(
                batch.input_ids, batch.prompt_lengths, pad_token_id=PAD_ID, eos_token_id=EOS_ID
            ),
            dtype=float,
        )
        expected = (batch.input_ids.shape[0], batch.input_ids.shape[1] - 1)
        if batch.response_mask.shape != expected:
            raise ValueError(
                f"response_token_mask returned shape {batch.response_mask.shape} for input_ids of "
                f"shape {batch.input_ids.shape}; the labels input_ids[:, 1:] have shape {expected}"
            )
        batch.advantages = rloo_advantages(batch.rewards, batch.prompt_classes, functions.leave_one_out_baselines)
        # Frozen behaviour log-probs (teacher forcing reproduces the sampler's numbers).
        batch.old_log_probs = token_log_probs(model, batch.input_ids)
        if first_batch is None:
            first_batch = batch
        weights = reduction_weights(batch.response_mask, config.reduction)
        progress = (iteration - 1) / config.iterations
        if config.anneal_learning_rate:
            optimizer.lr = config.learning_rate * (1.0 - progress)
        entropy_weight = (
            config.entropy_coef * max(0.0, 1.0 - progress / config.entropy_decay) if config.entropy_decay > 0 else 0.0
        )
        objective = clip_fraction = np.nan
        recorded = iteration % config.evaluation_every == 0 or iteration == config.iterations
        for epoch in range(config.ppo_epochs):
            new_lp, cache = token_log_probs(model, batch.input_ids, keep_cache=True)
            ratio, unclipped, clipped, pessimistic = _ppo_terms(
                functions.masked_token_ppo_terms,
                new_lp,
                batch.old_log_probs,
                batch.advantages,
                batch.response_mask,
                config.clip_epsilon,
            )
            if recorded and epoch == config.ppo_epochs - 1:  # the history records the last epoch's objective
                objective = _objective(
                    functions.masked_token_ppo_objective, new_lp, batch, config.clip_epsilon, config.reduction
                )
                active = batch.response_mask != 0
                clip_fraction = (
                    float(np.mean(~np.isclose(pessimistic[active], unclipped[active]))) if active.any() else 0.0
                )
            grad_lp = ppo_log_prob_gradient(ratio, unclipped, clipped, pessimistic, config.clip_epsilon, weights)
            grads = log_prob_gradients(model, cache, grad_lp, entropy_weight * weights if entropy_weight else None)
            if config.max_grad_norm is not None:
                norm = np.sqrt(sum(float(np.sum(g * g)) for g in grads.values()))
                if norm > config.max_grad_norm:
                    grads = {k: g * (config.max_grad_norm / norm) for k, g in grads.items()}
            optimizer.ascend(model.weights, grads)
        if recorded:
            evaluation = record(iteration, objective, clip_fraction, np.mean(batch.rewards))
    return {
        "history": history,
        "model": model,
        "first_batch": first_batch,
        "final_evaluation": {"mean_reward": evaluation["mean_reward"], "success_rate": evaluation["success_rate"]},
        "seconds": time.perf_counter() - started,
        "config": dataclasses.asdict(config),
    }


# -- graded entry point ---------------------------------------------------------------------------
def sequence_rloo_lab(seed, profile="smoke", functions=None):
    """The graded run: train with your functions (:func:`graded_sequence_config`) and return the trained weights.

    The grader calls this in its own process, with ``functions`` that call yours
    across its process boundary (default: :func:`student_functions`); it rebuilds
    the policy from the weights and judges its responses with its own sampling and
    verifier.

    Returns
    -------
    dict of str to numpy.ndarray
    """
    run = train_tiny_sequence_policy(graded_sequence_config(profile, seed=seed), functions)
    return policy_weights(run["model"])
