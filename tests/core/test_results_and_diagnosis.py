"""How failures become grades and messages: the contract's gate and cap, the diagnostic order,
the structure every hidden test file of a function exercise keeps, and the known-mistake
diagnosis (grader.core.results, grader.core.diagnosis, grader.core.plugin)."""

from __future__ import annotations

import ast
import re

import numpy as np
import pytest

from grader.core.course import load_course
from grader.core.diagnosis import Call, Raised, diagnose, known_mistakes, mistake_files, read_header, run
from grader.core.results import CONTRACT_SHARE, FunctionResult, SubmissionResult, messages_of, score_function
from grader.core.results import TestOutcome as Outcome
from grader.core.submission import Record
from grader.engine.driver import grade_here
from grader.engine.parcel import Parcel
from grader.engine.record import GradeRecord
from tests.helpers import MISTAKES, ROOT, build_submission, grade_json

COURSE = load_course(ROOT, check_tests=False)
FUNCTIONS = [e.function for e in COURSE.exercises if e.kind == "function"]


def outcome(name, passed, kind="probe", weight=1.0, message="wrong"):
    return Outcome(name, passed, weight, "" if passed else message, kind)


# -- scoring: the contract earns only with behaviour, and at most its share -----------------
def test_contract_earns_nothing_unless_every_worked_example_passes():
    tests = [
        outcome("example", False, "example", 3),
        outcome("probe", True, "probe", 2),
        outcome("raises", True, "contract"),
        outcome("lists", True, "contract"),
    ]
    failing = score_function(COURSE, "gae_advantages", tests, None)
    # The probe's weight alone is earned; the contract still counts in the total, at its capped share.
    assert failing.score == pytest.approx(5 * 2 / 5 * (1 - CONTRACT_SHARE))
    tests[0] = outcome("example", True, "example", 3)
    assert score_function(COURSE, "gae_advantages", tests, None).score == 5


def test_contract_weighs_at_most_its_share():
    tests = [outcome("example", True, "example", 1)] + [outcome(f"raises{i}", True, "contract") for i in range(5)]
    tests[1] = outcome("raises0", False, "contract")
    tests.append(outcome("probe", True, "probe", 1))
    share_lost = 1 - score_function(COURSE, "gae_advantages", tests, None).score / 5
    # One of five contract tests failed: a fifth of the contract's (capped) share is lost.
    assert share_lost == pytest.approx(CONTRACT_SHARE / 5)


def test_a_memorised_worked_example_earns_only_with_hidden_cases():
    # The published answers, zeros elsewhere: every example passes, no hidden probe or property does.
    tests = [
        outcome("example", True, "example", 3),
        outcome("probe", False, "probe", 2),
        outcome("random", False, "property", 2),
        outcome("lists", True, "contract"),
    ]
    assert score_function(COURSE, "gae_advantages", tests, None).score == 0
    tests[1] = outcome("probe", True, "probe", 2)  # computing one hidden case right: the examples count again
    assert score_function(COURSE, "gae_advantages", tests, None).score > 5 * 5 / 7 * 0.9 - 1e-9


def test_a_failed_gate_makes_the_exercise_earn_nothing():
    tests = [
        outcome("example", True, "example", 3),
        outcome("probe", True, "probe", 2),
        Outcome("seed", True, 1.0, "", "probe", True),
    ]
    assert score_function(COURSE, "gae_advantages", tests, None).score == 5
    tests[2] = Outcome("seed", False, 1.0, "the results do not vary with the seed", "probe", True)
    assert score_function(COURSE, "gae_advantages", tests, None).score == 0


def test_a_body_that_only_raises_earns_nothing():
    tests = [outcome("example", False, "example", 3), outcome("probe", False, "probe", 2)]
    tests += [outcome(f"rejects{i}", True, "contract") for i in range(4)]
    assert score_function(COURSE, "gae_advantages", tests, None).score == 0


def test_tests_are_kept_in_diagnostic_order_and_the_diagnosis_comes_first():
    tests = [
        outcome("raises", False, "contract", message="must raise ValueError"),
        outcome("property", False, "property", message="differs on random inputs"),
        outcome("example", False, "example", message="does not reproduce"),
        outcome("probe", False, "probe", message="the recursion ignores gae_lambda"),
    ]
    result = score_function(COURSE, "gae_advantages", tests, None, diagnosis=(None, "in common"))
    assert [t.kind for t in result.tests] == ["probe", "example", "property", "contract"]
    assert result.messages == [
        "in common",
        "the recursion ignores gae_lambda",
        "does not reproduce",
        "differs on random inputs",
        "must raise ValueError",
    ]
    # A known mistake that explains every wrong result is all there is to read of them; a failed
    # input check is no part of any mistake and follows it.
    result = score_function(COURSE, "gae_advantages", tests, None, diagnosis=("ignores_lambda", "named"))
    assert result.messages == ["named", "must raise ValueError"] and result.mistake == "ignores_lambda"


def test_results_json_round_trips_and_old_json_still_reads():
    tests = [outcome("probe", False, message="m"), outcome("raises", True, "contract")]
    result = SubmissionResult(
        "s",
        {
            "gae_advantages": score_function(
                COURSE, "gae_advantages", tests, None, diagnosis=("ignores_lambda", "named")
            )
        },
    )
    data = result.to_json()
    assignment_of = lambda name: COURSE.exercise(name).assignment  # noqa: E731
    again = SubmissionResult.from_json(data, assignment_of)
    assert again.to_json() == data
    old = {
        "submission": "s",
        "functions": {
            "gae_advantages": {
                "score": 1.0,
                "max": 5,
                "error": None,
                "tests": [{"name": "t", "passed": False, "weight": 1.0, "message": "m"}],
            }
        },
    }
    f = SubmissionResult.from_json(old, assignment_of).functions["gae_advantages"]
    assert isinstance(f, FunctionResult) and f.tests[0].kind == "probe" and f.diagnosis is None
    assert messages_of(old["functions"]["gae_advantages"]) == ["m"]


# -- the structure of the hidden tests of function exercises -------------------------------
CONTRACT_CALLS = {"expect_raises", "expect_inputs_unchanged"}
CONTRACT_NAMES = (
    "test_accepts_",
    "test_rejects_",
    "test_does_not_modify_",
    "test_empty",
    "test_returns_a_",
    "test_returns_all_",
)


def marks(node: ast.FunctionDef) -> set[str]:
    """Names of the pytest marks on a test function (``@pytest.mark.contract`` -> ``contract``)."""
    found = set()
    for decorator in node.decorator_list:
        target = decorator.func if isinstance(decorator, ast.Call) else decorator
        if isinstance(target, ast.Attribute) and ast.unparse(target).startswith("pytest.mark."):
            found.add(target.attr)
    return found


@pytest.mark.parametrize("function", FUNCTIONS)
def test_every_hidden_test_declares_what_it_checks(function):
    tree = ast.parse(COURSE.hidden_test_file(function).read_text(encoding="utf-8"))
    tests = [n for n in tree.body if isinstance(n, ast.FunctionDef) and n.name.startswith("test_")]
    examples = [
        t
        for t in tests
        if any(f"example_cases({function!r})" in ast.unparse(d).replace('"', "'") for d in t.decorator_list)
    ]
    assert len(examples) == 1, "one test runs the worked examples, parametrized with example_cases(function)"
    for test in tests:
        called = {n.func.id for n in ast.walk(test) if isinstance(n, ast.Call) and isinstance(n.func, ast.Name)}
        if called & CONTRACT_CALLS or test.name.startswith(CONTRACT_NAMES):
            assert "contract" in marks(test), f"{test.name} checks the contract: mark it @pytest.mark.contract"
        assert not {"example", "property"} & marks(test), (
            f"{test.name}: example_cases and grader.testing.given mark examples and properties themselves"
        )


@pytest.mark.parametrize("function", FUNCTIONS)
def test_every_known_mistake_names_itself(function):
    files = mistake_files(COURSE, function)
    assert len(files) >= 3, f"autograder-tests/mistakes/{function}/ holds too few known mistakes"
    for path in files:
        summary, fields = read_header(path.read_text(encoding="utf-8"))
        assert summary and "expect" in fields and "diagnosis" in fields, path
        assert fields["expect"].lower() in fields["diagnosis"].lower(), (
            f"{path}: the diagnosis is the first message, so it must contain the expect phrase"
        )
    assert [m.name for m in known_mistakes(COURSE, function)] == [p.stem for p in files]


def test_mistake_folders_name_function_exercises():
    folders = {p.name for p in (COURSE.tests_dir / "mistakes").iterdir() if p.is_dir()}
    assert folders <= set(FUNCTIONS), folders - set(FUNCTIONS)


# -- the diagnosis ---------------------------------------------------------------------------
def gae_call(gamma, gae_lambda, model=None):
    args = dict(
        rewards=np.array([1.0, 0.5, 2.0, -1.0]),
        values=np.array([0.2, 0.4, 0.1, 0.3]),
        next_values=np.array([0.4, 0.1, 0.3, 0.7]),
        terminated=np.zeros(4, bool),
        trace_cuts=np.array([False, False, False, True]),
        gamma=gamma,
        gae_lambda=gae_lambda,
    )
    call = Call((), args, None)
    function = model or COURSE.reference("gae_advantages")
    return Call((), args, run(function, call))


def model(name):
    return next(m.run for m in known_mistakes(COURSE, "gae_advantages") if m.name == name)


def test_a_mistake_that_explains_every_failure_is_named():
    failed = [gae_call(0.9, 0.5, model("ignores_lambda")), gae_call(0.8, 0.3, model("ignores_lambda"))]
    name, message = diagnose(COURSE, "gae_advantages", failed)
    assert name == "ignores_lambda" and "ignores gae_lambda" in message


def test_no_name_when_nothing_or_two_mistakes_explain_the_failures():
    right = [gae_call(0.9, 0.5)]
    assert diagnose(COURSE, "gae_advantages", right) is None  # the values are right: nothing to explain
    both = [gae_call(0.9, 0.5, model("ignores_lambda")), gae_call(0.9, 0.5, model("undiscounted_bootstrap"))]
    assert diagnose(COURSE, "gae_advantages", both) is None  # two mistakes at once: none explains everything
    unknown = gae_call(0.9, 0.5)
    unknown = Call(unknown.args, unknown.kwargs, unknown.outcome + 1.0)
    assert diagnose(COURSE, "gae_advantages", [unknown]) is None


def test_raising_is_an_answer_too():
    call = gae_call(0.9, 0.5)
    assert diagnose(COURSE, "gae_advantages", [Call(call.args, call.kwargs, Raised("ZeroDivisionError"))]) is None


def test_grading_names_the_mistake_in_the_hidden_suite_only(tmp_path):
    mistake = COURSE.tests_dir / "mistakes" / "gae_advantages" / "ignores_lambda.py"
    submission = build_submission(tmp_path / "s", [mistake])
    parcel = Parcel.read("s", submission, only=["gae_advantages"])
    hidden = grade_here(COURSE, [parcel], only=["gae_advantages"])["s"].result.functions["gae_advantages"]
    assert hidden.mistake == "ignores_lambda" and hidden.messages[0] == hidden.diagnosis
    visible = grade_here(COURSE, [parcel], suite="visible", only=["gae_advantages"])["s"].result
    assert visible.functions["gae_advantages"].diagnosis is None


# -- a default argument: the message names what the answers show -----------------------------------
def test_the_default_check_blames_the_default_only_when_it_differs():
    from grader.testing import Misconception, expect_default

    right, other = np.array([1.0, 2.0]), np.array([1.0, 2.5])
    expect_default(right, right, right, "clip_epsilon", 0.2, "the interval [0.8, 1.2]")  # right: nothing to say
    # The call without the argument answers otherwise than the call with the docstring's value: the default differs.
    with pytest.raises(Misconception) as failure:
        expect_default(other, right, right, "clip_epsilon", 0.2, "the interval [0.8, 1.2]")
    assert "the default of clip_epsilon must be the docstring's 0.2 (the interval [0.8, 1.2])" in str(failure.value)
    # Both answer alike and wrong: the default is used; the interval is not named.
    with pytest.raises(Misconception) as failure:
        expect_default(other, other, right, "clip_epsilon", 0.2, "the interval [0.8, 1.2]")
    assert "the default is used" in str(failure.value) and "interval" not in str(failure.value)


def test_a_wrong_term_is_not_told_its_default_interval_is_wrong(tmp_path):
    # max_instead_of_min keeps the docstring's default; only wrong_default_epsilon changes it. Before, both read
    # "called without clip_epsilon, the interval is not the docstring's default [0.8, 1.2]".
    mistakes = MISTAKES / "ppo_clipped_terms"
    paths = [
        build_submission(tmp_path / m, [mistakes / f"{m}.py"]) for m in ("max_instead_of_min", "wrong_default_epsilon")
    ]
    results = grade_json(*paths, only=["ppo_clipped_terms"])
    default = [
        next(t for t in r["functions"]["ppo_clipped_terms"]["tests"] if t["name"] == "test_default_clip_epsilon")
        for r in results
    ]
    assert not default[0]["passed"] and "interval" not in default[0]["message"], default[0]
    assert "the default is used" in default[0]["message"]
    assert not default[1]["passed"] and "default of clip_epsilon must be the docstring's 0.2" in default[1]["message"]


# -- what reports count ----------------------------------------------------------------------
def test_the_report_counts_the_diagnosed_mistake_not_the_first_failing_test():
    from grader.report.build import ClassData, misconceptions

    def record(student, diagnosis):
        tests = [
            outcome("probe", False, message="the recursion ignores gae_lambda"),
            outcome("example", False, "example", message="does not reproduce the worked example"),
        ]
        f = score_function(
            COURSE, "gae_advantages", tests, None, diagnosis=(diagnosis, f"named {diagnosis}") if diagnosis else None
        )
        return GradeRecord(student, student, SubmissionResult(student, {"gae_advantages": f}))

    data = ClassData(
        "t",
        "s",
        {},
        [record("ada", "ignores_lambda"), record("bo", "ignores_lambda"), record("cy", None)],
        [{"id": "ps4b", "functions": ["gae_advantages"]}],
    )
    rows = {row["message"]: row["count"] for row in misconceptions(data)}
    assert rows == {"named ignores_lambda": 2, "the recursion ignores gae_lambda": 1}


def test_what_unexplained_failures_have_in_common():
    from grader.core.observation import observe

    reference = COURSE.reference("masked_token_ppo_terms")
    args = dict(
        new_log_probs=np.array([[-0.5, -1.0, -9.0]]),
        old_log_probs=np.array([[-0.7, -0.8, -1.0]]),
        advantages=np.array([1.0]),
        mask=np.array([[1.0, 1.0, 0.0]]),
    )
    ratio, unclipped, clipped, pessimistic = reference(**args)
    ratio = ratio.copy()
    ratio[0, 2] = 5.0  # wrong only where the mask is 0
    said = observe(COURSE, "masked_token_ppo_terms", [Call((), args, (ratio, unclipped, clipped, pessimistic))])
    # What narrows the cause first, the count of wrong answers last.
    assert said.endswith(
        "only ratio is ever wrong, always at masked positions only (prompt, padding); 1 of 1 answers checked are wrong"
    ), said
    diagnostics = COURSE.reference("ppo_diagnostics")
    calls = []
    for new in ([-0.5, -1.0], [0.3, -0.2]):
        args = dict(new_log_prob=np.array(new), old_log_prob=np.array([-0.4, -0.6]), advantage=np.array([1.0, -1.0]))
        fields = dict(vars(diagnostics(**args)), approx_kl_nonnegative=-1.0)
        calls.append(Call((), args, Record("PPODiagnostics", fields)))  # as a student's dataclass comes back
    assert "show: only approx_kl_nonnegative is ever wrong;" in observe(COURSE, "ppo_diagnostics", calls)
    calls[1].outcome.fields["mean_log_ratio"] = 9.0
    assert "show: only approx_kl_nonnegative and mean_log_ratio are ever wrong;" in observe(
        COURSE, "ppo_diagnostics", calls
    )
    assert observe(COURSE, "gae_advantages", [gae_call(0.9, 0.5)]) is None


@pytest.mark.parametrize(
    "function, mistake", [("reward_to_go", "discounts_current_reward"), ("gae_advantages", "ignores_lambda")]
)
def test_a_known_mistake_without_input_checks_is_still_named_first(function, mistake, tmp_path):
    # Students often write no validation at all: the contract tests fail too, and must not hide
    # the misconception (every known mistake keeps the reference's checks).
    path = MISTAKES / function / f"{mistake}.py"
    text = re.sub(r"^( +)if .*:\n\1    raise ValueError\(.*\)\n", "", path.read_text(encoding="utf-8"), flags=re.M)
    assert "raise ValueError" not in text
    variant = tmp_path / function / f"{mistake}.py"
    variant.parent.mkdir(parents=True)
    variant.write_text(text, encoding="utf-8")
    result = grade_json(build_submission(tmp_path / "s", [variant]), only=[function])[0]["functions"][function]
    assert result["mistake"] == mistake, result["diagnosis"]
    contract = [t for t in result["tests"] if t["kind"] == "contract" and not t["passed"]]
    assert contract, "the variant should fail the input checks"
    assert messages_of(result)[0] == result["diagnosis"] and contract[0]["message"] in messages_of(result)
    # It explains the wrong values, not the failed input checks: the message does not claim more.
    assert "every wrong value" in result["diagnosis"] and "every wrong result" not in result["diagnosis"]


# -- observations: what the answers show, found by the grader, naming no cause --------------------
def rtg_call(rewards, gamma, answer=None):
    args = dict(rewards=np.array(rewards, dtype=float), gamma=gamma)
    right = run(COURSE.reference("reward_to_go"), Call((), args, None))
    return Call((), args, right if answer is None else answer(right))


def test_observations_localise_the_error_without_a_catalogue():
    from grader.core.observation import observe

    reversed_ = [
        rtg_call([1.0, 2.0, 4.0], 0.9, lambda a: a[::-1]),
        rtg_call([3.0, -1.0, 0.5, 2.0], 0.5, lambda a: a[::-1]),
    ]
    said = observe(COURSE, "reward_to_go", reversed_)
    assert "the right answer reversed" in said and "no known mistake" in said
    flipped = [rtg_call([1.0, 2.0, 4.0], 0.9, lambda a: -a), rtg_call([3.0, -1.0, 0.5], 0.5, lambda a: -a)]
    said = observe(COURSE, "reward_to_go", flipped)
    # A sign flipped is the factor -1: said once, as the narrower relation.
    assert "sign flipped" in said and "constant factor" not in said
    # Wrong only when gamma is strictly between 0 and 1, right with gamma = 1: the factor is named.
    by_gamma = [rtg_call([1.0, 2.0, 4.0], 0.9, lambda a: a + 1.0), rtg_call([1.0, 2.0, 4.0], 1.0)]
    said = observe(COURSE, "reward_to_go", by_gamma[:1], by_gamma[1:])
    assert "wrong only with gamma not 0 or 1 (every answer with gamma = 1 is right)" in said
    # No value of a hidden case appears (the right answer here is 6.04, 5.6, 4; the inputs 1, 2, 4 and 0.9).
    assert not any(value in said for value in ("6.04", "5.6", "4", "0.9", "2.0"))
    assert observe(COURSE, "reward_to_go", [rtg_call([1.0, 2.0], 0.9)]) is None  # nothing wrong, nothing said


def test_a_probe_names_its_cause_only_when_the_answers_show_it():
    from grader.core.diagnosis import causes_named, evidenced

    message = "the recursion ignores gae_lambda: each step back must decay by gamma * gae_lambda"
    causes = causes_named(COURSE, "gae_advantages", message)
    assert causes == ["ignores_lambda"]
    shown = [gae_call(0.9, 0.5, model("ignores_lambda"))]
    assert evidenced(COURSE, "gae_advantages", shown, [], causes) == ["ignores_lambda"]
    other = gae_call(0.9, 0.5, model("undiscounted_bootstrap"))  # wrong, but not in the way the text says
    assert evidenced(COURSE, "gae_advantages", [other], [], causes) == []
    # A relation the student's answers break (grader.testing.Evidenced) is evidence by itself.
    assert evidenced(COURSE, "gae_advantages", [other], [], causes, relation=True) == ["ignores_lambda"]


def mask_call(include_eos, mistake=None):
    """A response_token_mask call (EOS 2, padding 0, text after the EOS) answered by a known mistake."""
    args = dict(
        input_ids=np.array([[5, 6, 7, 2, 8, 9, 0], [5, 6, 8, 9, 2, 0, 0]]),
        prompt_lengths=np.array([2, 2]),
        pad_token_id=0,
        eos_token_id=2,
        include_eos=include_eos,
    )
    function = (
        COURSE.reference("response_token_mask")
        if mistake is None
        else next(m.run for m in known_mistakes(COURSE, "response_token_mask") if m.name == mistake)
    )
    return Call((), args, run(function, Call((), args, None)))


def test_a_narrower_mistake_that_shares_the_probes_symptom_is_no_evidence():
    from grader.core.diagnosis import evidenced

    # The student's mask never stops at the EOS (ignores_eos). On the include_eos=False probe a mask that
    # stops only when the EOS is counted (excluded_eos_does_not_stop) answers as they did; but it is right
    # with include_eos=True, where the student is wrong: their answers show the wider mistake, not it.
    probe, elsewhere = mask_call(False, "ignores_eos"), mask_call(True, "ignores_eos")
    named = ["excluded_eos_does_not_stop"]
    assert evidenced(COURSE, "response_token_mask", [probe], [], named) == named  # the probe alone agrees
    assert evidenced(COURSE, "response_token_mask", [probe], [], named, failed=[probe, elsewhere]) == []
    # The student who makes that narrower mistake is right with include_eos=True: it stays named.
    narrow = mask_call(False, "excluded_eos_does_not_stop")
    assert (
        evidenced(
            COURSE,
            "response_token_mask",
            [narrow],
            [mask_call(True, "excluded_eos_does_not_stop")],
            named,
            failed=[narrow],
        )
        == named
    )


def test_catalogue_phrases_name_causes_not_shared_symptoms():
    from grader.core.diagnosis import causes_named

    # "different seeds give identical results" is true of a fixed seed and of the theoretical values alike,
    # and a masked logit gives NaN when shifting by the mean or by the minimum: such texts are what the
    # answers show, and no catalogue phrase (no cause id) is found in them.
    assert (
        causes_named(
            COURSE,
            "simulate_group_baseline_bias",
            "the results do not vary with the seed: different "
            "seeds give identical results; the seed argument must seed the generator",
        )
        == []
    )
    assert (
        causes_named(
            COURSE,
            "stable_softmax",
            "a masked action (logit -inf) produced NaN or inf: it must simply "
            "get probability 0 (shifting by the maximum handles it; shifting by the mean or the "
            "minimum does not)",
        )
        == []
    )


def test_a_relation_that_names_no_cause_is_said_as_observed():
    from grader.core.observation import observe

    relation = "the results do not vary with the seed: different seeds give identical results"
    said = observe(COURSE, "reward_to_go", [rtg_call([1.0, 2.0], 0.9, lambda a: -a)], [], [relation, relation])
    assert said.startswith(
        "reward_to_go: no known mistake explains every wrong result; what your answers show: " + relation + "; 1 of 1"
    )
    assert said.count(relation) == 1
    assert observe(COURSE, "reward_to_go", [rtg_call([1.0, 2.0], 0.9)], [], [relation]).endswith(relation)


def test_observations_say_which_values_of_a_number_and_which_rows():
    from grader.core.observation import observe

    # Wrong only with the smaller gammas (0.5, 0.6), right with the larger (0.9, 0.95): said without a value.
    calls = [rtg_call([1.0, 2.0, 4.0], g, lambda a: a * 1.5) for g in (0.5, 0.6)]
    said = observe(COURSE, "reward_to_go", calls, [rtg_call([1.0, 2.0, 4.0], g) for g in (0.9, 0.95)])
    assert "wrong only with the smaller values of gamma (every answer with a larger gamma is right)" in said
    assert not any(value in said for value in ("0.5", "0.6", "0.9", "0.95"))
    # The right answer plus a constant; wrong in a one-element input only.
    said = observe(COURSE, "reward_to_go", [rtg_call([1.0], 0.9, lambda a: a + 2.0)], [rtg_call([1.0, 2.0, 4.0], 0.9)])
    assert "wrong only with rewards of one element" in said
    # The right answer plus a constant: on two answers or more (one answer of one wrong offset proves little).
    said = observe(COURSE, "reward_to_go", [rtg_call([1.0, 2.0, 4.0], 0.9, lambda a: a + 2.0)])
    assert "plus" not in said
    said = observe(COURSE, "reward_to_go", [rtg_call(r, 0.9, lambda a: a + 2.0) for r in ([1.0, 2.0, 4.0], [0.5, 3.0])])
    assert "the right answer plus one constant, the same for every input" in said
    # Rows: a batch's last row alone is wrong; every row's last position alone is wrong.
    ids = np.array([[5, 6, 7, 2, 8], [5, 6, 8, 9, 2], [5, 7, 7, 2, 0]])
    args = dict(input_ids=ids, prompt_lengths=np.array([2, 2, 2]), pad_token_id=0, eos_token_id=2, include_eos=True)
    right = run(COURSE.reference("response_token_mask"), Call((), args, None))
    last_row, last_column = right.copy(), right.copy()
    last_row[-1] = 1 - last_row[-1]
    last_column[:, -1] = 1 - last_column[:, -1]
    assert "the wrong values always sit in the last row only" in observe(
        COURSE, "response_token_mask", [Call((), args, last_row)]
    )
    assert "in each row's last element only" in observe(COURSE, "response_token_mask", [Call((), args, last_column)])


def test_observations_say_an_argument_changes_nothing():
    from grader.core.observation import observe

    # The same rewards at two gammas, the same answer from the student (gamma ignored): a relation between
    # their own answers, said without a value; an answer that changes with gamma says nothing of the kind.
    ignored = [rtg_call([1.0, 2.0, 4.0], g, lambda a: np.array([7.0, 6.0, 4.0])) for g in (0.5, 0.9)]
    said = observe(COURSE, "reward_to_go", ignored)
    assert "your answers do not change with gamma (two inputs that differ in gamma alone" in said
    wrong = [rtg_call([1.0, 2.0, 4.0], g, lambda a: a + 1.0) for g in (0.5, 0.9)]
    assert "do not change with" not in observe(COURSE, "reward_to_go", wrong)
    # Two different arrays that get one answer are said as such: the answers may change with other arrays.
    same = [rtg_call(r, 0.9, lambda a: np.array([1.0, 1.0, 1.0])) for r in ([1.0, 2.0, 4.0], [0.0, 2.0, 4.0])]
    said = observe(COURSE, "reward_to_go", same)
    assert "two inputs that differ in rewards alone get the same answer from you" in said
    assert "do not change with rewards" not in said


def softmax_call(logits, answer=None):
    args = dict(logits=np.array(logits, dtype=float))
    right = run(COURSE.reference("stable_softmax"), Call((), args, None))
    return Call((), args, right if answer is None else answer(right))


def test_observations_say_an_answer_is_the_log_exp_or_reciprocal_of_the_right_one():
    from grader.core.observation import observe

    logits = ([1.0, 2.0, 0.5], [0.3, -1.0, 2.0, 0.0])
    # Log-probabilities for probabilities, probabilities exponentiated, each inverted: said without a value.
    for answer, words in (
        (np.log, "each wrong answer is the log of the right answer"),
        (np.exp, "each wrong answer is the exp of the right answer"),
        (np.reciprocal, "each wrong answer is the reciprocal of the right answer"),
    ):
        said = observe(COURSE, "stable_softmax", [softmax_call(x, answer) for x in logits])
        assert words in said and "no known mistake" in said, said
        assert sum(w in said for w in ("the log of", "the exp of", "the reciprocal of")) == 1, said
    # One wrong answer is not enough to say it, nor is a constant where the right answer varies.
    assert "the log of" not in observe(COURSE, "stable_softmax", [softmax_call(logits[0], np.log)])
    rtg = [rtg_call([0.0, 0.0, 0.0], g, lambda a: np.ones_like(a)) for g in (0.5, 0.9)]
    assert "the exp of" not in observe(COURSE, "reward_to_go", rtg)
    # A relation that holds on one wrong answer and not on another is not said.
    mixed = [softmax_call(logits[0], np.log), softmax_call(logits[1], lambda a: a * 2.0)]
    assert "the log of" not in observe(COURSE, "stable_softmax", mixed)
