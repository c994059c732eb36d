"""The tiny autoregressive RLOO/PPO lab (solutions/llm_sequence.py): backpropagation, verifier,
batch layout, the gradient taken from the student's PPO terms, training and its graded entry point."""

from __future__ import annotations

import dataclasses
import subprocess
import sys
import time

import numpy as np
import pytest

from tests.helpers import ROOT, recording

sys.path.insert(0, str(ROOT / "solutions"))
import llm_sequence as lab  # noqa: E402
import response_tokens  # noqa: E402


def random_policy(seed, hidden_size=5, scale=0.5):
    """A policy with every weight random (the initial output layer is zero)."""
    rng = np.random.default_rng(seed)
    model = lab.init_policy(hidden_size, rng)
    for name, w in model.weights.items():
        model.weights[name] = w + rng.normal(0.0, scale, w.shape)
    return model, rng


def objective_of(model, ids, g_lp, g_ent):
    lp, cache = lab.token_log_probs(model, ids, keep_cache=True)
    return float(np.sum(g_lp * lp) + np.sum(g_ent * lab.token_entropies(cache)))


# -- backpropagation through time -------------------------------------------------------------
@pytest.mark.parametrize("seed", [0, 1])
def test_backpropagation_matches_finite_differences(seed):
    model, rng = random_policy(seed)
    batch = lab.sample_responses(model, 3, rng)
    ids = batch.input_ids
    g_lp = rng.normal(size=(ids.shape[0], ids.shape[1] - 1))
    # Columns whose label the policy cannot emit carry no gradient by contract.
    g_ent = np.where(lab.TOKEN_TO_ACTION[ids[:, 1:]] >= 0, rng.normal(size=g_lp.shape), 0.0)
    _, cache = lab.token_log_probs(model, ids, keep_cache=True)
    grads = lab.log_prob_gradients(model, cache, g_lp, g_ent)
    h = 1e-6
    for name, w in model.weights.items():
        numeric = np.zeros_like(w)
        for idx in np.ndindex(w.shape):
            old = w[idx]
            w[idx] = old + h
            plus = objective_of(model, ids, g_lp, g_ent)
            w[idx] = old - h
            minus = objective_of(model, ids, g_lp, g_ent)
            w[idx] = old
            numeric[idx] = (plus - minus) / (2 * h)
        np.testing.assert_allclose(grads[name], numeric, rtol=1e-5, atol=1e-7, err_msg=name)


def test_teacher_forcing_reproduces_the_sampling_log_probs():
    model, rng = random_policy(3)
    batch = lab.sample_responses(model, 6, rng)
    forced = lab.token_log_probs(model, batch.input_ids)
    generated = lab.TOKEN_TO_ACTION[batch.input_ids[:, 1:]] >= 0
    np.testing.assert_allclose(forced[generated], batch.sample_log_probs[generated], rtol=0, atol=1e-12)
    assert np.all(forced[~generated] == 0.0)


# -- the verifier and decoding -----------------------------------------------------------------
@pytest.mark.parametrize(
    "prompt, response, reward, success",
    [
        (0, "A B <eos>", 1.0, True),
        (1, "B C <eos>", 1.0, True),
        (2, "C A <eos>", 1.0, True),
        (0, "A C <eos>", 0.7, False),  # wrong second symbol, right stop
        (0, "A B C <eos>", 0.6, False),  # right symbols, no stop after them
        (0, "A B C D", 0.6, False),  # ran out of tokens without EOS
        (0, "A <eos>", 0.3, False),  # stopped one symbol early
        (0, "<eos>", 0.0, False),
        (1, "A B <eos>", 0.4, False),  # another prompt's answer
        (2, "A C <eos>", 0.4, False),  # right symbols in the wrong places
    ],
)
def test_verifier(prompt, response, reward, success):
    ids = [lab.TOKENS.index(t) for t in response.split()]
    assert lab.verify_response(prompt, ids) == (pytest.approx(reward), success)


def test_rows_are_read_up_to_the_first_eos():
    row = np.array([1, 4, 6, 8, 9, 2, 0, 0])
    assert lab.response_of(row, 3) == (8, 9, 2)
    assert lab.decode_sequence(row) == "<bos> y ? B C <eos>"
    rewards, success = lab.score_rows(row[None], [3], [1])
    assert rewards.tolist() == [1.0] and success.tolist() == [True]


# -- batch layout and masks ----------------------------------------------------------------------
def expected_mask(batch):
    """Column k is label k + 1: a response token from the prompt's end to the first EOS, EOS included."""
    ids = batch.input_ids
    mask = np.zeros((ids.shape[0], ids.shape[1] - 1))
    for b, (row, length) in enumerate(zip(ids, batch.prompt_lengths)):
        response = lab.response_of(row, length)
        mask[b, length - 1 : length - 1 + len(response)] = 1.0
    return mask


def test_sampled_batches_have_the_lab_layout():
    model, rng = random_policy(4, scale=1.0)
    batch = lab.sample_responses(model, 20, rng)
    ids, lengths = batch.input_ids, batch.prompt_lengths
    assert ids.shape == (3 * 20, lab.sequence_length())
    assert sorted(set(lengths.tolist())) == [2, 3, 4]  # three prompt lengths
    ends = 0
    for row, length, cls in zip(ids, lengths, batch.prompt_classes):
        assert tuple(row[:length]) == lab.PROMPTS[cls]
        response = lab.response_of(row, length)
        assert np.all(row[length + len(response) :] == lab.PAD_ID)  # after EOS: only padding
        ends += response[-1] == lab.EOS_ID
    assert 0 < ends < len(ids)  # some rows stop, some run out of tokens


def test_mask_excludes_prompt_padding_and_after_eos_and_keeps_the_generated_eos():
    model, rng = random_policy(5, scale=1.0)
    batch = lab.sample_responses(model, 20, rng)
    mask = response_tokens.response_token_mask(batch.input_ids, batch.prompt_lengths, lab.PAD_ID, lab.EOS_ID)
    np.testing.assert_array_equal(mask, expected_mask(batch))
    labels = batch.input_ids[:, 1:]
    assert np.all(mask[labels == lab.PAD_ID] == 0)
    for b, length in enumerate(batch.prompt_lengths):
        assert np.all(mask[b, : length - 1] == 0)  # labels inside the prompt
    eos_rows = np.any(labels == lab.EOS_ID, axis=1)
    assert np.all(mask[labels == lab.EOS_ID] == 1) and eos_rows.any()


@pytest.fixture(scope="module")
def smoke_run():
    started = time.process_time()
    run = lab.train_tiny_sequence_policy(lab.sequence_profile_config("smoke", seed=5))
    return run, time.process_time() - started


def test_training_batches_use_the_mask_and_rloo_advantages(smoke_run):
    batch = smoke_run[0]["first_batch"]
    np.testing.assert_array_equal(batch.response_mask, expected_mask(batch))
    for cls in range(lab.NUM_PROMPTS):
        group = batch.prompt_classes == cls
        assert group.sum() == lab.sequence_profile_config("smoke").group_size
        assert abs(batch.advantages[group].sum()) < 1e-12
        r = batch.rewards[group]
        np.testing.assert_allclose(batch.advantages[group], r - (r.sum() - r) / (len(r) - 1))
    np.testing.assert_allclose(batch.old_log_probs, batch.sample_log_probs, atol=1e-12)


# -- the PPO gradient read from the terms ---------------------------------------------------------
@pytest.mark.parametrize("reduction", lab.REDUCTIONS)
def test_gradient_from_the_terms_matches_the_objective(reduction):
    rng = np.random.default_rng(7)
    model, _ = random_policy(6)
    batch = lab.sample_responses(model, 5, rng)
    mask = response_tokens.response_token_mask(batch.input_ids, batch.prompt_lengths, lab.PAD_ID, lab.EOS_ID)
    old = np.where(mask != 0, rng.uniform(-2.0, -0.2, mask.shape), 0.0)
    new = old + np.where(mask != 0, rng.normal(0.0, 0.3, mask.shape), 0.0)
    adv = rng.normal(size=len(mask))
    terms = response_tokens.masked_token_ppo_terms(new, old, adv, mask, clip_epsilon=0.2)
    weights = lab.reduction_weights(mask, reduction)
    value = response_tokens.masked_token_ppo_objective(new, old, adv, mask, 0.2, reduction)
    assert np.sum(weights * terms[3]) == pytest.approx(value, rel=1e-12)
    grad = lab.ppo_log_prob_gradient(*terms, 0.2, weights)
    h = 1e-7
    for idx in zip(*np.nonzero(mask)):
        bumped = [new.copy(), new.copy()]
        bumped[0][idx] += h
        bumped[1][idx] -= h
        plus, minus = (response_tokens.masked_token_ppo_objective(b, old, adv, mask, 0.2, reduction) for b in bumped)
        assert grad[idx] == pytest.approx((plus - minus) / (2 * h), rel=1e-5, abs=1e-8)
    assert np.all(grad[mask == 0] == 0)


def test_an_optimistic_maximum_changes_the_gradient():
    ratio = np.array([[1.5, 0.5]])
    adv = np.array([[-1.0, 1.0]])
    unclipped = ratio * adv
    clipped = np.clip(ratio, 0.8, 1.2) * adv
    pessimistic = lab.ppo_log_prob_gradient(ratio, unclipped, clipped, np.minimum(unclipped, clipped), 0.2, 1.0)
    optimistic = lab.ppo_log_prob_gradient(ratio, unclipped, clipped, np.maximum(unclipped, clipped), 0.2, 1.0)
    # The minimum keeps correcting a ratio that moved the wrong way; the maximum stops.
    np.testing.assert_allclose(pessimistic, [[-1.5, 0.5]])
    np.testing.assert_allclose(optimistic, [[0.0, 0.0]])


# -- training --------------------------------------------------------------------------------------
def test_smoke_training_reaches_the_threshold_quickly(smoke_run):
    run, seconds = smoke_run
    assert seconds < 15.0
    assert run["final_evaluation"]["success_rate"] >= 0.9
    history = run["history"]
    assert history["iteration"][0] == 0 and history["iteration"][-1] == lab.sequence_profile_config("smoke").iterations
    assert len(history["evaluation_mean_reward"]) == len(history["success_rate"]) == len(history["iteration"])
    assert history["evaluation_mean_reward"][-1] > history["evaluation_mean_reward"][0] + 0.5
    trusted = lab.evaluate_sequence_policy(run["model"], samples_per_prompt=200, deterministic=False, seed=99)
    assert trusted["success_rate"] >= 0.9
    greedy = lab.evaluate_sequence_policy(run["model"])
    assert greedy["success"].all()
    assert [lab.decode_sequence(r) for r in greedy["input_ids"]] == [
        "<bos> x A B <eos>",
        "<bos> y ? B C <eos>",
        "<bos> z ? ? C A <eos>",
    ]


def test_training_prints_nothing_by_default(capsys):
    lab.train_tiny_sequence_policy(lab.SequenceConfig(iterations=2, group_size=4, ppo_epochs=1))
    assert capsys.readouterr().out == ""


def test_same_seed_same_weights_whatever_the_evaluation():
    config = lab.SequenceConfig(seed=3, iterations=8)
    a = lab.train_tiny_sequence_policy(config)
    b = lab.train_tiny_sequence_policy(dataclasses.replace(config, evaluation_every=1, evaluation_samples=1))
    c = lab.train_tiny_sequence_policy(dataclasses.replace(config, seed=4))
    for name in lab.WEIGHT_NAMES:
        np.testing.assert_array_equal(a["model"].weights[name], b["model"].weights[name])
    assert not np.array_equal(a["model"].weights["output_weights"], c["model"].weights["output_weights"])
    np.testing.assert_array_equal(a["first_batch"].input_ids, b["first_batch"].input_ids)


def test_graded_entry_point_returns_plain_weights_that_rebuild_the_policy():
    weights = lab.sequence_rloo_lab(seed=7, profile="smoke")
    assert set(weights) == set(lab.WEIGHT_NAMES)
    assert all(type(w) is np.ndarray and w.dtype == np.float64 for w in weights.values())
    assert lab.check_policy_weights(weights, lab.sequence_profile_config("smoke").hidden_size) == []
    run = lab.train_tiny_sequence_policy(lab.sequence_profile_config("smoke", seed=7))
    for name in lab.WEIGHT_NAMES:
        np.testing.assert_array_equal(weights[name], run["model"].weights[name])
    rebuilt = lab.policy_from_weights(weights)
    assert lab.evaluate_sequence_policy(rebuilt)["success_rate"] == 1.0


@pytest.mark.parametrize(
    "change, phrase",
    [
        (lambda w: w.pop("output_bias"), "lack output_bias"),
        (lambda w: w.update(extra=np.zeros(2)), "unknown entries extra"),
        (lambda w: w.update(output_bias=[0.0] * 5), "numeric numpy array"),
        (lambda w: w.update(recurrent_update_reset=np.zeros((3, 3))), "has shape (3, 3)"),
        (lambda w: w["output_weights"].__setitem__((0, 0), np.nan), "NaN or infinite"),
    ],
)
def test_bad_weights_are_named(change, phrase):
    weights = lab.policy_weights(lab.init_policy(4, np.random.default_rng(0)))
    change(weights)
    with pytest.raises(ValueError, match=None) as info:
        lab.policy_from_weights(weights, 4)
    assert phrase in str(info.value)
    assert lab.check_policy_weights("weights") == ["the weights should be a dict of numpy arrays, not str"]


def test_profiles():
    smoke, full = lab.sequence_profile_config("smoke"), lab.sequence_profile_config("full")
    assert full.iterations > smoke.iterations and full.group_size >= smoke.group_size
    assert smoke == lab.SequenceConfig()  # the defaults are the smoke budget
    assert lab.sequence_profile_config("full", seed=9, ppo_epochs=2) == dataclasses.replace(full, seed=9, ppo_epochs=2)
    with pytest.raises(dataclasses.FrozenInstanceError):
        smoke.iterations = 1
    with pytest.raises(ValueError, match="unknown profile"):
        lab.sequence_profile_config("huge")
    graded = lab.graded_sequence_config("smoke", seed=7)
    assert graded == dataclasses.replace(smoke, seed=7, evaluation_every=smoke.iterations)


@pytest.mark.parametrize(
    "field, value, phrase",
    [
        ("group_size", 1, "SequenceConfig.group_size must be an integer >= 2 (a leave-one-out baseline"),
        ("iterations", 0, "SequenceConfig.iterations must be an integer >= 1, got 0"),
        ("ppo_epochs", 2.0, "SequenceConfig.ppo_epochs must be an integer >= 1, got 2.0"),
        ("hidden_size", True, "SequenceConfig.hidden_size must be an integer >= 1, got True"),
        ("reduction", "mean", "SequenceConfig.reduction must be one of token_mean, sequence_mean, sequence_sum_mean"),
        ("clip_epsilon", 1.5, "SequenceConfig.clip_epsilon must be a number in (0, 1), got 1.5"),
        ("learning_rate", float("nan"), "SequenceConfig.learning_rate must be a number > 0, got nan"),
        ("max_grad_norm", 0.0, "SequenceConfig.max_grad_norm must be a number > 0 or None"),
        ("adam_betas", (0.9,), "SequenceConfig.adam_betas must be a pair of numbers in [0, 1)"),
        ("entropy_decay", -0.1, "SequenceConfig.entropy_decay must be a number >= 0"),
        ("evaluation_every", 0, "SequenceConfig.evaluation_every must be an integer >= 1"),
        ("anneal_learning_rate", "yes", "SequenceConfig.anneal_learning_rate must be True or False"),
    ],
)
def test_a_bad_setting_is_named(field, value, phrase):
    with pytest.raises(ValueError) as info:
        lab.SequenceConfig(**{field: value})
    assert phrase in str(info.value)
    with pytest.raises(ValueError, match=f"SequenceConfig.{field} "):  # a changed copy is checked too
        dataclasses.replace(lab.sequence_profile_config("full"), **{field: value})
    with pytest.raises(ValueError, match=f"SequenceConfig.{field} "):
        lab.sequence_profile_config("smoke", **{field: value})


def test_the_trainer_takes_a_configuration():
    with pytest.raises(TypeError, match="config must be a SequenceConfig"):
        lab.train_tiny_sequence_policy({"iterations": 2})
    assert lab.SequenceConfig(max_grad_norm=None, entropy_decay=0.0).max_grad_norm is None


# -- imports: the student's modules are used when training starts, never at import -----------------
def test_trusted_side_loads_the_module_without_student_modules():
    code = (
        "import importlib.util, sys\n"
        f"spec = importlib.util.spec_from_file_location('trusted_lab', {str(ROOT / 'solutions' / 'llm_sequence.py')!r})\n"
        "mod = importlib.util.module_from_spec(spec); spec.loader.exec_module(mod)\n"
        "assert 'response_tokens' not in sys.modules and 'group_baselines' not in sys.modules\n"
        "print(mod.verify_response(0, [7, 8, 2]))\n"
    )
    proc = subprocess.run([sys.executable, "-I", "-c", code], capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip() == "(1.0, True)"


def test_training_uses_the_modules_on_sys_path():
    """With exercises/ first on the path, the unimplemented stubs are what the training calls."""
    code = (
        "import sys\n"
        f"sys.path.insert(0, {str(ROOT / 'exercises')!r})\n"
        "import llm_sequence\n"
        "try:\n"
        "    llm_sequence.sequence_rloo_lab(0)\n"
        "except NotImplementedError as error:\n"
        "    print(error)\n"
    )
    proc = subprocess.run([sys.executable, "-I", "-c", code], capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0, proc.stderr
    assert "response_token_mask is not implemented yet" in proc.stdout


def test_injected_functions_see_plain_data_only_and_train_as_the_default():
    # The grader passes functions that call the student's across its process boundary: they
    # receive arrays, numbers and strings, never the policy or the optimiser, and the run is
    # the run a student gets at home with the default imports.
    seen = []
    functions = lab.student_functions()
    spied = recording(functions, seen)
    injected = lab.sequence_rloo_lab(seed=7, profile="smoke", functions=spied)
    default = lab.sequence_rloo_lab(seed=7, profile="smoke")
    for name in lab.WEIGHT_NAMES:
        np.testing.assert_array_equal(injected[name], default[name])
    assert {name for name, _ in seen} == set(vars(functions))
    for name, value in seen:
        assert isinstance(value, (np.ndarray, int, float, str)), (name, type(value))
