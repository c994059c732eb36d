"""The course's rules beyond the module: one list, and every check and message that enforces one says so.

autograder-tests/course_rules.yaml is the list (grader.core.rules). Checked here: it reads, and a
malformed one is refused with its file and rule named; every ``course_rule`` marker of the hidden
tests names a rule of the list that concerns its function, and every rule is enforced by a marked
test of each function it names; each of those functions' docstrings states its rules (in solutions/
and so in the stubs); docs/feedback.md lists them all. Then, graded: a check that enforces a rule
ends its failure message with the rule's note, also when the message is rewritten as an
observation; the first message names the rules the failed checks enforce, whether it is a known
mistake or an observation; and a marker naming no rule stops the grading as a course error.
"""

from __future__ import annotations

import ast
import importlib.util
import shutil
import warnings

import numpy as np
import pytest

from grader import testing
from grader.core.course import load_course
from grader.core.rules import RULES_FILE, course_rules
from grader.errors import CourseError
from tests.helpers import ROOT, build_submission, grade_json, run_grader

COURSE = load_course(ROOT, check_tests=False)
EXERCISES = {e.function for e in COURSE.exercises}
RULES = course_rules(COURSE.tests_dir, EXERCISES)
DATA = ROOT / "tests" / "data" / "course_rules"


def markers() -> dict[str, set[str]]:
    """The ``course_rule`` ids each function's hidden tests are marked with (read from the source)."""
    found: dict[str, set[str]] = {}
    for path in sorted(COURSE.hidden_tests_dir.glob("test_*.py")):
        function = path.stem[len("test_") :]
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if (
                isinstance(node, ast.Call)
                and isinstance(node.func, ast.Attribute)
                and node.func.attr == "course_rule"
                and node.args
            ):
                argument = node.args[0]
                if isinstance(argument, ast.Constant):
                    found.setdefault(function, set()).add(argument.value)
                else:  # a name whose values are the ids of a table (test_response_token_mask's EDGE_CASES)
                    found.setdefault(function, set()).add(None)
    return found


# -- the list --------------------------------------------------------------------------------------
def test_the_list_names_rules_of_exercises():
    assert RULES, f"autograder-tests/{RULES_FILE} lists no rule"
    for rule in RULES.values():
        assert rule.functions and set(rule.functions) <= EXERCISES, rule.id
        assert rule.note.startswith("[course rule, beyond the module: ") and rule.note.endswith("]")


@pytest.mark.parametrize(
    "text, problem",
    [
        ("a: {title: t, functions: [gae_advantages], rule: r}\n", "exactly the keys"),
        ("a: {title: t, functions: [], rule: r, module: m}\n", "non-empty list"),
        ("a: {title: '', functions: [gae_advantages], rule: r, module: m}\n", "non-empty strings"),
        ("a b: {title: t, functions: [gae_advantages], rule: r, module: m}\n", "identifier"),
        ("- a\n", "mapping"),
        ("a: {title: t, functions: [no_such_function], rule: r, module: m}\n", "'no_such_function' is not an exercise"),
    ],
)
def test_a_malformed_list_is_refused_naming_the_file_and_rule(tmp_path, text, problem):
    (tmp_path / RULES_FILE).write_text(text, encoding="utf-8")
    with pytest.raises(CourseError, match=RULES_FILE) as error:
        course_rules(tmp_path, EXERCISES)
    assert problem in str(error.value)


def test_without_the_file_there_is_no_rule(tmp_path):
    assert course_rules(tmp_path, EXERCISES) == {}


def test_every_marker_names_a_rule_of_its_function_and_every_rule_is_enforced():
    marked = markers()
    for function, ids in marked.items():
        for rule_id in ids - {None}:
            assert rule_id in RULES, f"test_{function}.py: course_rule({rule_id!r}) is not in {RULES_FILE}"
            assert function in RULES[rule_id].functions, f"test_{function}.py marks {rule_id}, a rule of others"
    for rule in RULES.values():
        for function in rule.functions:
            assert rule.id in marked.get(function, set()) or None in marked.get(function, set()), (
                f"no hidden test of {function} is marked course_rule({rule.id!r})"
            )


@pytest.mark.parametrize("folder", ["solutions", "exercises"])
def test_each_function_states_its_rules_in_its_docstring(folder):
    for rule in RULES.values():
        for function in rule.functions:
            path = ROOT / folder / f"{COURSE.exercise(function).module}.py"
            tree = ast.parse(path.read_text(encoding="utf-8"))
            [node] = [n for n in tree.body if isinstance(n, ast.FunctionDef) and n.name == function]
            doc = " ".join((ast.get_docstring(node) or "").split())
            assert "Course rule" in doc and rule.title in doc, (
                f"{folder}/{path.name}: {function} does not state {rule.id}"
            )


def test_the_docs_list_every_rule():
    text = (ROOT / "docs" / "feedback.md").read_text(encoding="utf-8")
    section = text[text.index("### The course's rules beyond the module") :]
    rows = [line for line in section.splitlines() if line.startswith("| `")]
    for rule in RULES.values():
        [row] = [r for r in rows if r.startswith(f"| `{rule.id}`")]
        assert all(f"`{f}`" in row for f in rule.functions), row


# -- graded ----------------------------------------------------------------------------------------
@pytest.fixture(scope="module")
def graded(tmp_path_factory):
    root = tmp_path_factory.mktemp("rules")
    submission = build_submission(root / "rules", sorted(DATA.glob("*/*.py")))
    [result] = grade_json(submission, only=sorted(p.name for p in DATA.iterdir()))
    return result["functions"]


def enforced(function: str, test: dict) -> list:
    return [r for r in RULES.values() if function in r.functions and test["message"].endswith(r.note)]


def test_only_the_checks_of_course_rules_fail_and_each_says_so(graded):
    for function, f in graded.items():
        failed = [t for t in f["tests"] if not t["passed"]]
        assert failed, f"{function}: the test data misses a course rule and must lose points"
        for test in failed:
            assert enforced(function, test), f"{function}: {test['name']}: {test['message']}"


def test_a_rewritten_probe_keeps_its_rule(graded):
    # The pad == eos probe names a cause the catalogue's mistake would show, but this mask also lacks
    # include_eos, so no mistake answers as it does: the probe becomes an observation, still a rule.
    [probe] = [t for t in graded["response_token_mask"]["tests"] if t["name"] == "test_pad_equal_to_eos"]
    assert probe["message"].startswith("wrong on a hand-built input")
    assert probe["message"].endswith(RULES["pad_equals_eos"].note)


def test_the_first_message_names_the_rules_of_the_failed_checks(graded):
    mask = graded["response_token_mask"]
    assert "what your answers show:" in mask["diagnosis"] and not mask["causes"]  # an observation...
    assert "enforces course rules beyond the module, not a misconception:" in mask["diagnosis"]  # ...and the rules
    for rule_id in ("pad_equals_eos", "include_eos_false", "prompt_length_range"):
        assert RULES[rule_id].title in mask["diagnosis"]
    masked = graded["sequence_log_probability"]
    assert masked["mistake"] == "multiplies_by_mask"  # a known mistake explains it...
    assert masked["diagnosis"].endswith(  # ...and it is the course's rule, not a misconception
        f"(the failed check enforces a course rule beyond the module, not a misconception: {RULES['masked_values_ignored'].title})"
    )
    # A failed input check alone: no first message of its own, the check says it.
    zscore = graded["group_zscore_advantages"]
    assert zscore["diagnosis"] is None
    assert [t["name"] for t in zscore["tests"] if not t["passed"]] == ["test_rejects_negative_eps"]


def test_a_marker_naming_no_rule_is_a_course_error(tmp_path):
    course = tmp_path / "course"
    for name in ("solutions", "exercises", "autograder-tests"):
        shutil.copytree(ROOT / name, course / name, ignore=shutil.ignore_patterns("__pycache__"))
    shutil.copy(ROOT / "course.yaml", course / "course.yaml")
    hidden = course / "autograder-tests" / "hidden" / "test_group_zscore_advantages.py"
    text = hidden.read_text(encoding="utf-8")
    hidden.write_text(text.replace('course_rule("nonnegative_eps")', 'course_rule("no_such_rule")'), encoding="utf-8")
    proc = run_grader("grade", "solutions", "--only", "group_zscore_advantages", cwd=course)
    assert proc.returncode == 2, proc.stdout + proc.stderr
    assert "no_such_rule" in proc.stderr and RULES_FILE in proc.stderr


# -- two right rules near the clip interval's end -----------------------------------------------------
def test_the_near_end_check_separates_the_module_rule_from_the_strict_one():
    # tests/data/correct/ppo_diagnostics/module_margin.py (the module's rule) keeps full marks
    # (tests/course/test_correct.py); here: the check it passes is one where the two rules really differ.
    testing.CONTEXT.course = COURSE
    spec = importlib.util.spec_from_file_location("_hidden_ppo_diagnostics", COURSE.hidden_test_file("ppo_diagnostics"))
    hidden = importlib.util.module_from_spec(spec)
    with warnings.catch_warnings():  # its markers are the grader plugin's, not registered in this session
        warnings.simplefilter("ignore", pytest.PytestUnknownMarkWarning)
        spec.loader.exec_module(hidden)
    reference = COURSE.reference_module("ppo_objective")
    new, old, advantage = hidden.near_the_interval_end()
    ratio = np.exp(new - old)
    unclipped, _, pessimistic = reference.ppo_clipped_terms(ratio, advantage, 0.2)
    strict, module = np.mean(pessimistic < unclipped), np.mean(pessimistic < unclipped - 1e-15)
    low, high = hidden.active_fraction_range(reference, new, old, advantage, 0.2)
    assert module < strict and (low, high) == (module, strict)
    assert reference.ppo_diagnostics(new, old, advantage).active_clip_fraction == strict
