# ---
# jupyter:
#   jupytext:
#     text_representation:
#       extension: .py
#       format_name: percent
#   kernelspec:
#     display_name: Python 3
#     language: python
#     name: python3
# ---

# %% [markdown]
# # Lab 4 — policy gradients end to end: baselines, GAE, PPO, response tokens
#
# This notebook runs the functions you wrote in the problem sets inside complete
# experiments. Nothing here is graded by itself; each section ends with checks
# (`assert`) that pass when your functions behave as their contracts say.
#
# * **Section 1** measures what a baseline does to the spread and the scale of a
#   group policy-gradient estimate.
# * **Section 2** feeds one tiny rollout to your `gae_advantages` to show why it
#   takes two masks.
# * **Section 3** trains PPO on CartPole with your `gae_advantages` and
#   `ppo_clipped_terms` — the same run the `cartpole_ppo_lab` exercise grades.
# * **Section 4** applies your response-token functions to a small batch of
#   autoregressive rows.
# * **Section 5** trains a tiny autoregressive policy with leave-one-out advantages
#   and token-level PPO.
#
# The environment, the networks and the training loops are course code (numpy only,
# CartPole included: it reproduces Gymnasium's CartPole-v1 step for step).
#
# **Profiles.** `RL_LLM_M4_PROFILE=smoke` (the default) is a quick check of the whole
# pipeline, about a minute on one core; `RL_LLM_M4_PROFILE=full` uses more seeds and
# a longer budget. The numbers are what this code produces under this protocol, not
# benchmarks of PPO in general.
#
# **Whose code runs.** The notebook imports *your* modules: those in its own folder (in
# a student kit, `exercises/`, where this notebook is), or the folder `RL_LLM_M4_CODE`
# names. Until you fill them in they are stubs: the first call stops with a
# `NotImplementedError`. In the course repository the default is `exercises/`; to see
# the whole notebook run on the course's reference solutions instead, run
# `make lab-notebook` there (it writes the executed notebook, figures included, to
# `course-build/lab4_policy_gradients.ipynb`), or start Jupyter with
# `RL_LLM_M4_CODE=$PWD/solutions`.
#
# **What it needs.** numpy and matplotlib in the notebook's kernel: a student kit installs
# both with its checker's `[notebooks]` extra (its README.txt says how).

# %%
from __future__ import annotations

import os

# One BLAS thread, set before numpy loads: the networks here are small, and on small
# matrices extra threads cost more time than they save (several times more on 2 cores).
for var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(var, "1")

import dataclasses  # noqa: E402
import sys  # noqa: E402
import time  # noqa: E402
from pathlib import Path  # noqa: E402

try:
    import matplotlib.pyplot as plt  # noqa: E402
except ModuleNotFoundError:
    raise ModuleNotFoundError(
        "this notebook draws its figures with matplotlib, which this kernel lacks: install it where the "
        "kernel runs (a student kit: pip install the checker's wheel with [notebooks], as its README.txt says)"
    ) from None
import numpy as np  # noqa: E402


def find_code_dir() -> Path:
    """The folder holding your modules (gae.py, ppo_objective.py, ...).

    ``RL_LLM_M4_CODE`` names it explicitly; otherwise the notebook's own folder if it
    holds gae.py, else the course repository's exercises/ folder.
    """
    if os.environ.get("RL_LLM_M4_CODE"):
        return Path(os.environ["RL_LLM_M4_CODE"]).resolve()
    here = Path.cwd().resolve()
    if (here / "gae.py").is_file():
        return here
    for parent in [here, *here.parents]:
        if (parent / "course.yaml").is_file() and (parent / "exercises").is_dir():
            return parent / "exercises"
    raise FileNotFoundError(
        f"cannot find your modules: there is no gae.py in {here}; run this notebook in the folder of your "
        "modules (a student kit: its exercises/), or set RL_LLM_M4_CODE to the folder holding gae.py"
    )


CODE_DIR = find_code_dir()
if str(CODE_DIR) not in sys.path:
    sys.path.insert(0, str(CODE_DIR))

from gae import gae_advantages  # noqa: E402
from group_baselines import simulate_group_baseline_bias  # noqa: E402
from ppo_training import aggregate_training_runs, profile_config, steps_to_threshold, train_ppo  # noqa: E402
from response_tokens import (  # noqa: E402
    masked_token_ppo_objective,
    masked_token_ppo_terms,
    response_token_mask,
    sequence_log_probability_ratio,
    sequence_probability_ratio,
)

PROFILE = os.environ.get("RL_LLM_M4_PROFILE", "smoke").strip().lower()
if PROFILE not in ("smoke", "full"):
    raise ValueError("RL_LLM_M4_PROFILE must be 'smoke' or 'full'")
SEEDS = [11, 37] if PROFILE == "smoke" else [11, 37, 71, 101, 131]
print(f"your code: {CODE_DIR}")
print(f"profile: {PROFILE} | training seeds: {SEEDS}")

# %% [markdown]
# ## 1. What a baseline buys, and what centring on the same group costs
#
# A response's score times its reward is an unbiased gradient estimate; subtracting a
# baseline that does not depend on the response keeps it unbiased and can shrink its
# spread a lot. Groups of `G` responses to one prompt suggest two baselines:
#
# * **leave-one-out (RLOO)**: the mean reward of the *other* `G - 1` responses —
#   independent of the current response, so still unbiased;
# * **the group mean**: it contains the current reward, and the expected gradient
#   shrinks by the factor `(G - 1) / G`.
#
# The simulation draws many groups from a one-parameter policy whose true gradient is
# known, and compares the mean (as a multiple of the true gradient) and the spread of
# the three estimators.

# %%
baseline = simulate_group_baseline_bias(group_size=8, groups=80_000 if PROFILE == "smoke" else 400_000, seed=2026)
for key, value in baseline.items():
    print(f"{key:>28s}: {value: .5f}")

fig, axes = plt.subplots(1, 2, figsize=(11, 4.2))
labels = ["no baseline", "group mean", "leave-one-out"]
axes[0].bar(
    labels,
    [baseline["plain_std"], baseline["same_group_std"], baseline["rloo_std"]],
    color=["#999999", "#d9822b", "#3a7dc9"],
)
axes[0].set_ylabel("std of the per-group estimate")
axes[0].set_title("Spread: both baselines help")
axes[1].bar(
    labels,
    [baseline["plain_scale"], baseline["same_group_scale"], baseline["rloo_scale"]],
    color=["#999999", "#d9822b", "#3a7dc9"],
)
axes[1].axhline(1.0, color="k", linewidth=1.0, label="unbiased")
axes[1].axhline(
    baseline["predicted_same_group_scale"], color="#d9822b", linestyle="--", linewidth=1.0, label="(G - 1) / G"
)
axes[1].set_ylabel("mean estimate / true gradient")
axes[1].set_title("Scale: only the group mean shrinks it")
axes[1].legend(loc="lower right")
for ax in axes:
    ax.grid(axis="y", alpha=0.3)
fig.tight_layout()
plt.show()

# The rows of this table are Monte Carlo estimates; the margins are many standard errors wide.
assert baseline["rloo_std"] < baseline["plain_std"] and baseline["same_group_std"] < baseline["plain_std"]
assert abs(baseline["rloo_scale"] - 1.0) < 0.05
assert abs(baseline["same_group_scale"] - baseline["predicted_same_group_scale"]) < 0.05

# %% [markdown]
# ## 2. GAE needs two masks
#
# Two different questions hide behind the usual `done` flag:
#
# 1. *Does the next state have a value worth bootstrapping from?* Only a real
#    termination says no. A time-limit truncation, or the last record of a rollout
#    buffer, still has a future: its target needs `gamma * V(next state)`.
# 2. *Does the next record of the array continue the same backward recursion?* Not
#    after an episode end (the next record belongs to a new episode after `reset()`),
#    and not after the buffer boundary.
#
# In the two records below, record 0 is the last record an environment contributed
# to the buffer (the episode goes on, but its continuation is not in this array);
# record 1 happens to sit next to it in memory and ends in a fall with a large reward.
# Record 0 must bootstrap from `V(s') = 10` and must *not* collect record 1's reward.

# %%
rewards = np.array([1.0, 100.0])
values = np.array([2.0, 0.0])
next_values = np.array([10.0, 0.0])
terminated = np.array([False, True])  # question 1: only record 1 fell
trace_cuts = np.array([True, True])  # question 2: record 0 is a buffer boundary, record 1 an episode end
gamma, lam = 0.9, 1.0
advantages = gae_advantages(rewards, values, next_values, terminated, trace_cuts, gamma=gamma, gae_lambda=lam)
print("advantages:", advantages)
print("value targets (values + advantages):", values + advantages)

# By hand: each record is its own one-step TD error, bootstrapped only where it did not terminate.
by_hand = [rewards[0] + gamma * next_values[0] - values[0], rewards[1] - values[1]]
assert np.allclose(advantages, by_hand), "check how your gae_advantages uses terminated and trace_cuts"

# One flag for both questions gets record 0 wrong in one of two ways.
print("one done flag, no bootstrap at the cut:", rewards[0] - values[0])
print("no cut at all, leaks record 1 into record 0:", by_hand[0] + gamma * lam * by_hand[1])

# %% [markdown]
# ## 3. PPO on CartPole
#
# `ppo_training.py` is a complete PPO in one file: an actor and a critic (two small
# tanh networks, backpropagation written out), rollouts of 8 CartPole copies for 32
# steps that store the old log-probabilities and values, your `gae_advantages` (with
# `terminated` only at falls and trace cuts at episode ends and at each copy's buffer
# boundary, bootstrapping truncations from the true final observation), twenty
# epochs per rollout on your `ppo_clipped_terms` (each epoch one step on the whole
# rollout: one minibatch of 256, rl-zoo's tuned CartPole setting; `num_minibatches` > 1
# would shuffle each epoch into minibatches), a clipped value loss and a
# small entropy bonus, gradient-norm clipping, Adam with a decaying learning rate
# (rl-zoo anneals its clip range as well; here clip_epsilon stays at the module's 0.2),
# your `ppo_diagnostics` after every update, and a greedy evaluation on separate
# CartPole episodes. Every hyperparameter is a field of the configuration printed
# below.
#
# The advantages and the value targets are computed once per rollout, before the
# epochs, and are *constants* of the losses: no gradient flows back through them (the
# detach contract, stated in `loss_and_gradient`). Otherwise the actor's update would
# also push the critic to make advantages look large.
#
# One run per seed, the whole budget, evaluated every second update; the curves show
# the median and the interquartile range over seeds of the greedy evaluation return.
# (The graded `cartpole_ppo_lab` runs the same training in the grader's process and
# stops once the policy has reached 475 in five evaluations in a row.)

# %%
runs = []
started = time.perf_counter()
for seed in SEEDS:
    config = profile_config(PROFILE, seed=seed)
    if PROFILE == "smoke":
        # Evaluate every second update: a denser curve; training itself is unchanged.
        config = dataclasses.replace(config, evaluation_every=2)
    result = train_ppo(config)
    runs.append(result)
    print(
        f"seed {seed:4d}: final greedy return {result['final_evaluation_mean']:6.1f} "
        f"± {result['final_evaluation_std']:5.1f}  ({result['wall_seconds']:.1f} s)"
    )
print(f"training wall time: {time.perf_counter() - started:.1f} s")
print(config)
curve = aggregate_training_runs(runs)
print("median first reaches 475 at", steps_to_threshold(curve), "environment steps")

# %%
steps = curve["environment_steps"]
evaluated = np.isfinite(curve["median"])
fig, ax = plt.subplots(figsize=(9, 4.8))
ax.fill_between(
    steps[evaluated],
    curve["q25"][evaluated],
    curve["q75"][evaluated],
    alpha=0.25,
    label="interquartile range over seeds",
)
ax.plot(steps[evaluated], curve["median"][evaluated], marker="o", markersize=3, label="median")
for row in curve["all_curves"]:
    ax.plot(steps[evaluated], row[evaluated], linewidth=0.8, alpha=0.35)
ax.axhline(500, linestyle="--", color="k", linewidth=1.0, label="time-limit ceiling (500)")
ax.axhline(475, linestyle=":", color="k", linewidth=1.0, label="solved (475)")
ax.set_xlabel("environment steps")
ax.set_ylabel("greedy evaluation return")
ax.set_title(f"PPO on CartPole-v1 with your GAE and clipping ({PROFILE} profile, {len(SEEDS)} seeds)")
ax.grid(alpha=0.3)
ax.legend(loc="lower right")
plt.show()
print("final greedy returns per seed:", [r["final_evaluation_mean"] for r in runs])

# %% [markdown]
# A rising curve from one convenient seed would not establish robustness, and a
# curve that ends at 500 here says nothing about harder tasks: read it as a check that
# collection, advantages, repeated optimisation and evaluation work together, not as a
# measurement of PPO. Comparing methods would take aligned budgets, many seeds and
# uncertainty summaries.
#
# The diagnostics below come from your `ppo_diagnostics`, on each rollout after its
# update (with the normalised advantages the loss optimised), and from the training loop (the policy's entropy on the update's last
# minibatch, which the entropy bonus keeps from collapsing too early). They describe
# one batch and one step of optimisation; they are not thresholds that hold across
# problems. `ratio_outside_fraction` counts ratios that left `[1 - eps, 1 + eps]`;
# `active_clip_fraction` counts only the rows where clipping changed the pessimistic
# term (a ratio outside the interval on the "harmless" side does not); the
# approximate KL is the mean of `(r - 1) - log r`, whose expectation over the old
# policy's actions is `KL(pi_old || pi_new)`: the sampling policy first. The module's
# text calls this the *reverse* KL, reverse to `KL(pi_new || pi_old)`, which would
# average over the new policy's actions (not in the batch).

# %%
history = runs[0]["history"]
updates = np.asarray(history["update"])
fig, axes = plt.subplots(1, 3, figsize=(15, 4.2))
axes[0].plot(updates, history["ratio_outside_fraction"], label="ratio outside the interval")
axes[0].plot(updates, history["active_clip_fraction"], label="clipping active")
axes[0].set_ylabel("fraction of the rollout")
axes[0].legend()
axes[1].plot(updates, history["approx_kl"], color="#7a3fb0")
axes[1].set_ylabel("approximate KL(old || new)")
axes[2].plot(updates, history["entropy"], color="#2f9e44")
axes[2].axhline(np.log(2), linestyle="--", color="k", linewidth=1.0, label="uniform policy (log 2)")
axes[2].set_ylabel("policy entropy (nats)")
axes[2].legend()
for ax in axes:
    ax.set_xlabel("update")
    ax.grid(alpha=0.3)
fig.suptitle(f"What each update did (seed {SEEDS[0]})")
fig.tight_layout()
plt.show()

outside = np.asarray(history["ratio_outside_fraction"])
active = np.asarray(history["active_clip_fraction"])
assert np.all(np.asarray(history["approx_kl"]) >= 0.0)
assert np.all(active <= outside + 1e-12), "clipping can only be active where the ratio left the interval"
assert np.all(np.asarray(history["entropy"]) > 0.0)

# %% [markdown]
# What the run does establish is narrow: collection, bootstrapping, advantages,
# repeated clipped optimisation and evaluation fit together. A mistake in either of
# your two functions usually shows here — ignoring `terminated` teaches the
# cart that falling is as good as balancing; dropping the bootstrap at truncations and
# buffer ends, or using the maximum instead of the minimum, leaves a policy that often
# ends far below 475. Some mistakes, though, CartPole forgives (it is an easy task):
# the unit tests of the problem sets are what pins each function down.

# %% [markdown]
# ## 4. Response tokens: shift, mask, reduce
#
# For an autoregressive policy, the logits at position `k` score the token at `k + 1`,
# so token-level arrays line up with `input_ids[:, 1:]`. Only the generated tokens —
# and the generated EOS, which is an action too — belong to the policy loss; prompt
# tokens and padding must drop out entirely. The batch below puts absurd
# log-probabilities at exactly those positions: if any of them leaks into a ratio or a
# term, the numbers show it.

# %%
# Positions: BOS, prompt..., response..., EOS, PAD...   (PAD id 0, EOS id 2)
input_ids = np.array(
    [
        [1, 10, 11, 20, 21, 2, 0],
        [1, 12, 30, 2, 0, 0, 0],
    ]
)
prompt_lengths = np.array([3, 2])
mask = response_token_mask(input_ids, prompt_lengths, pad_token_id=0, eos_token_id=2, include_eos=True)
print("response mask, aligned with input_ids[:, 1:]:\n", mask)

old_log_probs = np.array(
    [
        [-9.0, -8.0, -1.0, -1.2, -0.8, -20.0],
        [-7.0, -0.7, -0.9, -30.0, -40.0, -50.0],
    ]
)
new_log_probs = np.array(
    [
        [9.0, 8.0, -0.7, -1.5, -0.9, 20.0],
        [7.0, -0.5, -1.2, 30.0, 40.0, 50.0],
    ]
)
sequence_advantages = np.array([1.5, -0.8])
ratio, unclipped, clipped, pessimistic = masked_token_ppo_terms(
    new_log_probs, old_log_probs, sequence_advantages, mask, clip_epsilon=0.2
)
print("token ratios (1 where masked):\n", np.round(ratio, 4))
print("pessimistic terms:\n", np.round(pessimistic, 4))
log_ratios = sequence_log_probability_ratio(new_log_probs, old_log_probs, mask)
print("whole-response log-ratios:", np.round(log_ratios, 4))
print("whole-response ratios:    ", np.round(sequence_probability_ratio(new_log_probs, old_log_probs, mask), 4))
for reduction in ("token_mean", "sequence_mean", "sequence_sum_mean"):
    value = masked_token_ppo_objective(
        new_log_probs, old_log_probs, sequence_advantages, mask, clip_epsilon=0.2, reduction=reduction
    )
    print(f"{reduction:>18s}: {value: .6f}")

on = mask != 0
assert np.all(pessimistic[~on] == 0.0) and np.all(ratio[~on] == 1.0), "a masked position leaked into the terms"
# The response ratio is the product of its token ratios: log-ratios add up.
assert np.allclose(np.exp(log_ratios), np.prod(np.where(on, ratio, 1.0), axis=1))
# The three reductions weight the same terms differently; on this batch they disagree.
reduced = [
    masked_token_ppo_objective(new_log_probs, old_log_probs, sequence_advantages, mask, 0.2, r)
    for r in ("token_mean", "sequence_mean", "sequence_sum_mean")
]
assert len(set(np.round(reduced, 9))) == 3

# %% [markdown]
# The token ratio is a *local* quantity: clipping each token's ratio does not bound the
# ratio of the whole response, which is their product. And the reduction is a choice
# with consequences: a token mean gives long responses more weight in the batch, a
# per-sequence mean gives every response the same weight, whatever its length.

# %% [markdown]
# ## 5. A tiny autoregressive policy trained with RLOO and token-level PPO
#
# Section 4 checked the tensor bookkeeping on a frozen batch; here the same functions
# drive a training run. A small GRU reads one of three prompts (of different lengths)
# and must answer with the right two symbols followed by EOS, which it has to
# generate itself. A verifier, not a differentiable loss, scores each response: some
# credit per correct symbol, some for stopping at the right place. For every prompt
# the code samples a group of responses, turns their rewards into leave-one-out
# advantages with your `leave_one_out_baselines`, freezes the token log-probabilities,
# masks the response tokens with your `response_token_mask`, and takes a few epochs of
# token-level clipped PPO through your `masked_token_ppo_terms` and
# `masked_token_ppo_objective`.
#
# The model is far too small to say anything about language; the point is that one
# executable path contains variable response lengths, the causal shift, prompt and
# padding masks, a generated EOS, a group baseline and token-level clipping.

# %%
from llm_sequence import (  # noqa: E402
    decode_sequence,
    evaluate_sequence_policy,
    sequence_profile_config,
    train_tiny_sequence_policy,
)

sequence_config = sequence_profile_config(PROFILE, seed=5)
print("configuration:", sequence_config)
sequence_run = train_tiny_sequence_policy(sequence_config)
first_batch = sequence_run["first_batch"]
assert first_batch is not None

print("the first rows of the initial rollout (before any update):")
for i in range(min(6, len(first_batch.prompt_classes))):
    print(
        f"  prompt {first_batch.prompt_classes[i]} | {decode_sequence(first_batch.input_ids[i]):<28s} "
        f"| reward {first_batch.rewards[i]:.2f} | advantage {first_batch.advantages[i]:+.3f} "
        f"| mask {first_batch.response_mask[i].astype(int).tolist()}"
    )

# Leave-one-out advantages of one prompt's group sum to zero: the group is its own baseline.
for prompt_class in np.unique(first_batch.prompt_classes):
    group = np.flatnonzero(first_batch.prompt_classes == prompt_class)
    np.testing.assert_allclose(first_batch.advantages[group].sum(), 0.0, atol=1e-12)
print("RLOO advantages sum to zero within every prompt group.")
# The mask covers the generated tokens and the generated EOS, never the prompt.
for row, length in zip(first_batch.response_mask, first_batch.prompt_lengths):
    assert np.all(row[: length - 1] == 0) and row.sum() >= 1

# %%
sequence_history = sequence_run["history"]
iterations = np.asarray(sequence_history["iteration"])
fig, axes = plt.subplots(1, 2, figsize=(12, 4.2))
axes[0].plot(iterations, sequence_history["evaluation_mean_reward"])
axes[0].set_ylabel("mean verifier reward (evaluation)")
axes[1].plot(iterations, sequence_history["success_rate"], color="#2f9e44")
axes[1].set_ylim(-0.02, 1.02)
axes[1].set_ylabel("exact-answer rate (evaluation)")
for ax in axes:
    ax.set_xlabel("iteration")
    ax.grid(alpha=0.3)
fig.suptitle("A tiny policy learning from a verifier")
fig.tight_layout()
plt.show()

initial = sequence_history["evaluation_mean_reward"][0]
final = sequence_run["final_evaluation"]["mean_reward"]
print(f"evaluation reward: {initial:.3f} before training, {final:.3f} after")
greedy = evaluate_sequence_policy(sequence_run["model"], samples_per_prompt=1, deterministic=True)
print("greedy answers after training:")
for prompt_class, row, reward in zip(greedy["prompt_classes"], greedy["input_ids"], greedy["rewards"]):
    print(f"  prompt {prompt_class} | {decode_sequence(row):<28s} | reward {reward:.2f}")
assert final > initial + 0.2, "the policy did not learn from the verifier; check the section 4 functions"

# %% [markdown]
# What this shows: the reward moved probability towards the right responses, while
# prompt tokens, padding and positions after EOS never entered the loss. What it does
# not show: anything about PPO for large models, where a reference policy and a KL
# penalty, a learned reward model or a richer verifier, length control, distributed and
# delayed rollouts and many systems constraints enter. And one advantage per response
# still tells no token which of its choices earned the reward.

# %% [markdown]
# ## 6. Takeaways
#
# * REINFORCE does not require a differentiable reward: the score-function estimator
#   needs the log-probability of what was sampled. Its variance depends on how the
#   policy is parameterised and on the baseline, and a baseline built from the current
#   response itself changes the expected gradient.
# * Advantages used by the actor loss need an explicit detach contract: they (and the
#   critic's value targets) are constants of the update, computed once per rollout.
#   In numpy that means no backward path through them; in an autograd framework, an
#   explicit `.detach()`. Without it the actor's loss would also train the critic.
# * Bootstrapping and the GAE recursion are separate decisions: `terminated` answers
#   the first, trace cuts (episode ends, buffer boundaries) the second.
# * PPO's clipping removes the incentive to push a ratio further once the pessimistic
#   term is clipped; it does not enforce a trust region, and the diagnostics measure
#   what actually happened to each batch.
# * A working PPO is more than its objective: rollouts with stored old log-probs and
#   values, value targets, repeated epochs of (minibatch) updates, gradient clipping, separate
#   deterministic evaluation, and several seeds before any conclusion.
# * On language models the same pieces reappear with a causal shift, a response mask
#   (generated EOS included), a group baseline and a reduction rule — and the credit a
#   single sequence-level advantage gives every token is still coarse.
# * A smoke run checks that the code fits together; it does not measure how a method
#   scales.
