"""Hidden test of the tiny autoregressive RLOO/PPO lab: the grader trains, the student's functions answer.

The course's training loop (llm_sequence.py) runs here, in the trusted process, with
its own GRU policy, sampler, verifier and optimiser. It calls the student's
``response_token_mask``, ``leave_one_out_baselines``, ``masked_token_ppo_terms`` and
``masked_token_ppo_objective`` across the boundary with plain arrays (charged to this
lab's time limit); they never see a weight. The trained policy's responses are then
sampled with this side's own generator and scored with its own verifier, so a run
can only pass with a policy that actually answers.

A sample of the calls is compared with the reference on the same inputs; when a run
falls short, the message names the functions that differed and how (an unshifted
mask, a missing EOS, baselines not divided by G - 1, a maximum instead of the
minimum, no clipping).

Before training, the calls of the reference's training on the same seed (recorded once
per grading process) are replayed to the student's functions in a few large crossings
(grader/core/labreplay.py): when every answer agrees with the reference's within the
tolerance of _same, the training with the student's functions is the reference's and
earns its evaluation without training again. Otherwise the grader trains as above.
"""

import numpy as np
import pytest

from grader import testing
from grader.core import labreplay
from grader.core.labrun import CrossCheck, one_blas_thread
from grader.core.submission import StudentError
from grader.testing import Misconception, exercise_params

PARAMS = exercise_params("sequence_rloo_lab")
EVALUATION_SAMPLES = 200  # sampled responses per prompt
EVALUATION_SEED = 4_700_013  # not a seed the training code evaluates with
LAB = "sequence_rloo_lab"
FUNCTIONS = ("response_token_mask", "leave_one_out_baselines", "masked_token_ppo_terms", "masked_token_ppo_objective")
TOLERANCE = dict(rtol=1e-7, atol=1e-9)  # as _same


def trusted(module):
    """A course module (solutions/) loaded in this trusted process."""
    return testing._course().reference_module(module)


def _same(a, b):
    a, b = np.asarray(a, dtype=float), np.asarray(b, dtype=float)
    return a.shape == b.shape and np.allclose(a, b, **TOLERANCE)


# -- where a student's function differs from its definition, in words ---------------------------------
def mask_judge(args, kwargs, got, want):
    got = np.asarray(got, dtype=float)
    if got.shape != np.shape(want) or _same(got, want):
        return None
    tokens = trusted("response_tokens")
    if _same(got, tokens.response_token_mask(*args, **dict(kwargs, include_eos=False))):
        return (
            "on rows that end with a generated EOS: it drops the EOS, which the default include_eos=True counts (stopping is "
            "an action of the policy and must be trained)"
        )
    if _same(got[:, 1:], want[:, :-1]):
        return (
            "on every lab batch: it is not aligned with the labels input_ids[:, 1:] (column k must describe "
            "token k + 1, the one the logits at k predict), so the first response token gets no gradient"
        )
    rows = int(np.sum(np.any(got != want, axis=1)))
    return (
        f"on {rows} of {len(want)} rows of a lab batch (prompt tokens, padding and tokens after the first EOS "
        "are excluded, the EOS itself included)"
    )


def baseline_judge(args, kwargs, got, want):
    if _same(got, want):
        return None
    rewards = np.asarray(args[0], dtype=float)
    total, g = rewards.sum(), len(rewards)
    known = [
        ((total - rewards) / g, "on groups of rewards: it divides the other rewards' sum by G instead of G - 1"),
        (
            total - rewards,
            "on groups of rewards: it does not divide the sum of the other rewards by G - 1, so "
            "every advantage is strongly negative",
        ),
        (np.full(g, total / g), "on groups of rewards: it includes each response's own reward (the group mean)"),
        (rewards - (total - rewards) / (g - 1), "on groups of rewards: it returns advantages, not baselines"),
    ]
    for wrong, kind in known:
        if _same(got, wrong):
            return kind
    return "on groups of rewards: it is not the mean reward of the other responses of the group"


def terms_judge(args, kwargs, got, want):
    if len(got) != 4 or any(np.shape(g) != np.shape(w) for g, w in zip(got, want)):
        return None
    active = np.asarray(args[3]) != 0
    pessimistic, unclipped, clipped = (np.asarray(want[i], dtype=float)[active] for i in (3, 1, 2))
    got_pessimistic = np.asarray(got[3], dtype=float)[active]
    if not _same(np.asarray(got[0], dtype=float)[active], np.asarray(want[0], dtype=float)[active]):
        return "in the token ratios (exp(new - old) on response tokens)"
    if _same(got_pessimistic, pessimistic):
        return None
    if _same(got_pessimistic, np.maximum(unclipped, clipped)):
        return (
            "where ratios leave the clip interval: it takes the maximum of the unclipped and clipped terms; the "
            "pessimistic term is their minimum, which stops pushing a ratio once it is clipped"
        )
    if _same(got_pessimistic, unclipped):
        return "where ratios leave the clip interval: it never clips (the pessimistic term is min(r A, clip(r) A))"
    return "in the pessimistic terms of response tokens (min(r A, clip(r) A))"


def objective_judge(args, kwargs, got, want):
    if _same(got, want):
        return None
    return f"with reduction={kwargs.get('reduction')!r} (a weighted sum of the pessimistic terms of response tokens)"


def cross_check(impl):
    return CrossCheck(
        impl.charged_to("sequence_rloo_lab"),
        testing._course().reference,
        {
            "response_token_mask": mask_judge,
            "leave_one_out_baselines": baseline_judge,
            "masked_token_ppo_terms": terms_judge,
            "masked_token_ppo_objective": objective_judge,
        },
    )


def likely_causes(student):
    findings = student.findings() if student is not None else []
    if findings:
        return "On the same inputs as the reference: " + "; ".join(findings) + "."
    return (
        "Every checked call of your four functions agreed with the reference, so the run itself fell short: "
        "train locally with train_tiny_sequence_policy(sequence_profile_config(seed=...), verbose=True) and "
        "watch where it stalls."
    )


# -- the graded runs ----------------------------------------------------------------------------------
def symptoms(lab, evaluation):
    """Which prompts fail, read from the trusted evaluation."""
    parts = []
    for cls in range(lab.NUM_PROMPTS):
        rows = evaluation["prompt_classes"] == cls
        prompt = lab.decode_sequence(lab.PROMPTS[cls][1:])
        parts.append(f"'{prompt}' {np.mean(evaluation['success'][rows]):.0%}")
    return "exact answers per prompt: " + ", ".join(parts)


def evaluated(lab, weights, profile, seed):
    """This side's evaluation of trained weights: sampled responses scored by its own verifier."""
    model = lab.policy_from_weights(weights, lab.sequence_profile_config(profile).hidden_size)
    return lab.evaluate_sequence_policy(
        model, samples_per_prompt=EVALUATION_SAMPLES, deterministic=False, seed=EVALUATION_SEED + seed
    )


def reference_record(lab, seed, profile):
    """The reference's training on ``seed`` (every call of the four functions) and its evaluation."""
    course = testing._course()

    def train(functions):
        with one_blas_thread():
            return evaluated(lab, lab.sequence_rloo_lab(seed, profile, functions=functions), profile, seed)

    return labreplay.reference_record((LAB, seed, profile), course.reference, FUNCTIONS, train, course=course)


def replay_finding(replayed):
    """Where the replay of the reference training first differed, in words (no expected value)."""
    judges = {
        "response_token_mask": mask_judge,
        "leave_one_out_baselines": baseline_judge,
        "masked_token_ppo_terms": terms_judge,
        "masked_token_ppo_objective": objective_judge,
    }
    kind = None
    if replayed.got is not None:
        try:
            kind = judges[replayed.function](replayed.args, replayed.kwargs, replayed.got, replayed.want)
        except Exception:  # a malformed answer: the reason already says so
            kind = None
    detail = f" ({kind})" if isinstance(kind, str) else ""
    return f"Replaying the reference training's calls, your functions first differed in {replayed.where()}{detail}."


@pytest.mark.parametrize("seed", PARAMS["seeds"])
def test_trained_policy_answers_every_prompt(impl, seed):
    """Replay the reference training's calls; train here only when an answer differs; evaluate here."""
    lab = trusted("llm_sequence")
    profile = PARAMS.get("profile", "smoke")
    needed = float(PARAMS["min_success_rate"])
    record = reference_record(lab, seed, profile)
    replayed = labreplay.replay_training(impl.charged_to(LAB), record, TOLERANCE, labreplay.reply_limit_of(impl))
    if replayed.agrees:
        evaluation, causes = record.outcome, likely_causes(None)
    else:
        student = cross_check(impl)
        try:
            with one_blas_thread():
                weights = lab.sequence_rloo_lab(seed, profile, functions=student)
            evaluation = evaluated(lab, weights, profile, seed)
        except StudentError as error:
            raise Misconception(f"the training (seed {seed}) stopped: {error.describe()}") from None
        except ValueError as error:  # the training loop's checks of what a student function returned
            raise Misconception(f"the training (seed {seed}) stopped: {error}. {likely_causes(student)}") from None
        causes = f"{likely_causes(student)} {replay_finding(replayed)}"
    rate = evaluation["success_rate"]
    if rate < needed:
        raise Misconception(
            f"after training on seed {seed} the policy answers exactly right in {rate:.0%} of sampled responses "
            f"(needs {needed:.0%}; mean reward {evaluation['mean_reward']:.2f}, {symptoms(lab, evaluation)}). "
            f"{causes}"
        )
