"""Hidden test of the tiny autoregressive RLOO/PPO lab: the grader judges the trained weights.

The student's worker trains the course's GRU policy (llm_sequence.py, always the
course's own copy) with the student's ``response_token_mask``,
``leave_one_out_baselines``, ``masked_token_ppo_terms`` and
``masked_token_ppo_objective``, and sends back only the weights. This side
rebuilds the policy with the course's code, samples its responses with its own
generator and scores them with its own verifier, so a run can only pass with a
policy that actually answers.

When a run falls short, the student's functions are probed on a batch laid out
exactly as the lab lays it out, and the message names the ones that disagree with
the reference and how.
"""

import numpy as np
import pytest

from grader import testing
from grader.testing import Misconception, exercise_params

PARAMS = exercise_params("sequence_rloo_lab")
EVALUATION_SAMPLES = 200  # sampled responses per prompt
EVALUATION_SEED = 4_700_013  # not a seed the training code evaluates with
PROBE_SEED = 2_024


def trusted(module):
    """A course module (solutions/) loaded in this trusted process."""
    return testing._course().reference_module(module)


# -- probing the student's functions on a lab-shaped batch ------------------------------------
def _same(a, b):
    a, b = np.asarray(a, dtype=float), np.asarray(b, dtype=float)
    return a.shape == b.shape and np.allclose(a, b, rtol=1e-7, atol=1e-9)


def _probe(call):
    """Run one probe; a failure to run becomes a hint too."""
    try:
        return call(), None
    except Exception as error:  # the student's error, a time limit, an unreadable value
        describe = getattr(error, "describe", None)
        return None, describe() if describe else f"{type(error).__name__}: {error}"


def probe_batch(lab):
    """Sampled responses of a fresh policy in the lab's layout: prompts of three lengths, EOS, padding."""
    rng = np.random.default_rng(PROBE_SEED)
    model = lab.init_policy(8, rng)
    for name in ("output_weights", "output_bias"):
        model.weights[name] = rng.normal(0.0, 0.5, model.weights[name].shape)
    return lab.sample_responses(model, 4, rng)


def mask_hints(impl, lab, tokens, batch):
    args = (batch.input_ids, batch.prompt_lengths)
    kwargs = dict(pad_token_id=lab.PAD_ID, eos_token_id=lab.EOS_ID)
    got, problem = _probe(lambda: impl.response_token_mask(*args, **kwargs, include_eos=True))
    if problem:
        return [f"response_token_mask failed on a lab batch ({problem})"]
    want = tokens.response_token_mask(*args, **kwargs, include_eos=True)
    got = np.asarray(got, dtype=float)
    if _same(got, want):
        return []
    if got.shape != want.shape:
        return [f"response_token_mask returns shape {got.shape} for input_ids of shape {batch.input_ids.shape}; "
                f"the mask is aligned with the labels input_ids[:, 1:], shape {want.shape}"]
    if _same(got, tokens.response_token_mask(*args, **kwargs, include_eos=False)):
        return ["response_token_mask drops the generated EOS although include_eos=True: stopping is an "
                "action of the policy and must be trained"]
    if _same(got[:, 1:], want[:, :-1]):
        return ["response_token_mask is not aligned with the labels input_ids[:, 1:] (column k must describe "
                "token k + 1, the one the logits at k predict): the first response token gets no gradient"]
    rows = int(np.sum(np.any(got != want, axis=1)))
    return [f"response_token_mask gives a wrong mask on {rows} of {len(want)} rows of a lab batch "
            "(prompt tokens, padding and tokens after the first EOS are excluded, the EOS itself included)"]


def baseline_hints(impl):
    rewards = np.array([0.3, 1.0, 0.7, 0.0, 0.6])
    got, problem = _probe(lambda: impl.leave_one_out_baselines(rewards))
    if problem:
        return [f"leave_one_out_baselines failed on a group of rewards ({problem})"]
    total, g = rewards.sum(), len(rewards)
    if _same(got, (total - rewards) / (g - 1)):
        return []
    known = [
        ((total - rewards) / g, "leave_one_out_baselines divides the other rewards' sum by G instead of G - 1"),
        (total - rewards, "leave_one_out_baselines does not divide the sum of the other rewards by G - 1, so "
                          "every advantage is strongly negative"),
        (np.full(g, total / g), "leave_one_out_baselines includes each response's own reward (the group mean)"),
        (rewards - (total - rewards) / (g - 1), "leave_one_out_baselines returns advantages, not baselines"),
    ]
    for wrong, hint in known:
        if _same(got, wrong):
            return [hint]
    return ["leave_one_out_baselines does not return the mean reward of the other responses of the group"]


def clipping_hints(impl, lab, tokens, batch):
    rng = np.random.default_rng(PROBE_SEED + 1)
    mask = tokens.response_token_mask(batch.input_ids, batch.prompt_lengths, lab.PAD_ID, lab.EOS_ID)
    old = np.where(mask != 0, rng.uniform(-2.5, -0.1, mask.shape), 0.0)
    new = old + np.where(mask != 0, rng.normal(0.0, 0.4, mask.shape), 0.0)  # ratios on both sides of the clip
    advantages = rng.normal(0.0, 1.0, len(mask))
    got, problem = _probe(lambda: impl.masked_token_ppo_terms(new, old, advantages, mask, clip_epsilon=0.2))
    if problem:
        return [f"masked_token_ppo_terms failed on lab log-probabilities ({problem})"]
    want = tokens.masked_token_ppo_terms(new, old, advantages, mask, clip_epsilon=0.2)
    hints = []
    if not (isinstance(got, (tuple, list)) and len(got) == 4 and all(np.shape(g) == mask.shape for g in got)):
        hints.append("masked_token_ppo_terms must return (ratio, unclipped, clipped, pessimistic), each of the "
                     "shape of the log-probabilities")
    else:
        active = mask != 0
        pess = np.asarray(got[3], dtype=float)[active]
        unclipped, clipped = want[1][active], want[2][active]
        if not _same(pess, want[3][active]):
            if _same(pess, np.maximum(unclipped, clipped)):
                hints.append("masked_token_ppo_terms takes the maximum of the unclipped and clipped terms; the "
                             "pessimistic term is their minimum, which stops pushing a ratio once it is clipped")
            elif _same(pess, unclipped):
                hints.append("masked_token_ppo_terms never clips: the pessimistic term is min(r A, clip(r) A)")
            elif not _same(np.asarray(got[0], dtype=float)[active], want[0][active]):
                hints.append("masked_token_ppo_terms computes the token ratios wrongly (exp(new - old) on "
                             "response tokens)")
            else:
                hints.append("masked_token_ppo_terms gives wrong pessimistic terms on lab log-probabilities")
    if hints:
        return hints  # a wrong objective would only echo wrong terms
    value, problem = _probe(lambda: impl.masked_token_ppo_objective(new, old, advantages, mask, clip_epsilon=0.2,
                                                                    reduction="token_mean"))
    if problem:
        hints.append(f"masked_token_ppo_objective failed on lab log-probabilities ({problem})")
    elif not _same(value, tokens.masked_token_ppo_objective(new, old, advantages, mask, 0.2, "token_mean")):
        hints.append("masked_token_ppo_objective with reduction='token_mean' differs from the mean of the "
                     "pessimistic terms over the response tokens")
    return hints


def likely_causes(impl, lab):
    """What the student's functions do differently on a lab-shaped batch, as sentences."""
    tokens = trusted("response_tokens")
    batch = probe_batch(lab)
    hints = mask_hints(impl, lab, tokens, batch) + baseline_hints(impl) + clipping_hints(impl, lab, tokens, batch)
    if hints:
        return "likely cause: " + "; ".join(hints)
    return ("your four functions agree with the reference on a lab batch, so the run itself fell short: train "
            "locally with train_tiny_sequence_policy(seed=..., verbose=True) and watch where it stalls")


# -- the graded runs ----------------------------------------------------------------------------------
def symptoms(lab, evaluation):
    """Which prompts fail, read from the trusted evaluation."""
    parts = []
    for cls in range(lab.NUM_PROMPTS):
        rows = evaluation["prompt_classes"] == cls
        prompt = lab.decode_sequence(lab.PROMPTS[cls][1:])
        parts.append(f"'{prompt}' {np.mean(evaluation['success'][rows]):.0%}")
    return "exact answers per prompt: " + ", ".join(parts)


@pytest.mark.parametrize("seed", PARAMS["seeds"])
def test_trained_policy_answers_every_prompt(impl, seed):
    """Train with the student's functions on one seed; the sampled responses must be exactly right often enough."""
    lab = trusted("llm_sequence")
    profile = PARAMS.get("profile", "smoke")
    needed = float(PARAMS["min_success_rate"])
    weights = impl.sequence_rloo_lab(seed=seed, profile=profile)
    hidden_size = lab.sequence_profile_config(profile)["hidden_size"]
    problems = lab.check_policy_weights(weights, hidden_size)
    if problems:
        raise Misconception(f"sequence_rloo_lab (seed {seed}) did not return usable policy weights: "
                            f"{'; '.join(problems)}. {likely_causes(impl, lab)}")
    model = lab.policy_from_weights(weights, hidden_size)
    evaluation = lab.evaluate_sequence_policy(model, samples_per_prompt=EVALUATION_SAMPLES, deterministic=False,
                                              seed=EVALUATION_SEED + seed)
    rate = evaluation["success_rate"]
    if rate < needed:
        raise Misconception(
            f"after training on seed {seed} the policy answers exactly right in {rate:.0%} of sampled responses "
            f"(needs {needed:.0%}; mean reward {evaluation['mean_reward']:.2f}, {symptoms(lab, evaluation)}). "
            f"{likely_causes(impl, lab)}")
