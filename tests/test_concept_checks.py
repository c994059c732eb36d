"""Concept checks (ps4d): grading arithmetic, messages, stub generation and leaks.

The key (solutions/) earns full marks, the generated answer sheet nothing, a sheet
with known mistakes an exact partial score; malformed answers come back as
messages; the answers and explanations never reach exercises/.
"""

from __future__ import annotations

import importlib.util
import re
import shutil
import textwrap
from pathlib import Path

import pytest

from grader import testing
from grader.answers import MultiSelect, Numeric
from grader.core.course import answer_names, load_course
from grader.core.stubs import ANSWER_FALLBACK, stub_source
from grader.errors import CourseError
from grader.testing import Misconception
from tests.helpers import ROOT, grade_json

COURSE = load_course(ROOT, check_tests=False)
ASSIGNMENT = COURSE.assignment("ps4d")
ITEMS = [e.function for e in ASSIGNMENT.exercises]
POINTS = {e.function: e.points for e in ASSIGNMENT.exercises}
SHEET = "concept_checks"


def question(name: str):
    """The QUESTION of an item's hidden test, imported in this (trusted) process."""
    testing.CONTEXT.course = COURSE  # Numeric formats read the tolerance, MultiSelect the key
    path = COURSE.hidden_test_file(name)
    spec = importlib.util.spec_from_file_location(f"_concept_test_{name}", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module.QUESTION


def sheet(tmp_path: Path, label: str, overrides: str, base: Path = COURSE.solutions_dir) -> Path:
    """A submission holding only the answer sheet: ``base``'s sheet with ``overrides`` appended."""
    folder = tmp_path / label
    folder.mkdir()
    source = (base / f"{SHEET}.py").read_text(encoding="utf-8")
    (folder / f"{SHEET}.py").write_text(source + "\n" + textwrap.dedent(overrides), encoding="utf-8")
    return folder


# Every line is one known mistake (or an accepted variant) with the score it must earn.
MISTAKES = """\
score_identity_correct = {2, 3}                       # one right, one wrong pick: net 0 of 2
policy_loss_tokens = [2]                              # one of two, no wrong pick: net 1 of 2
direct_dependence_statements = (True, True, True, False)        # 3 of 4 statements
baseline_validity = ("unbiased",) * 4 + ("biased",)   # 3 of 5 items
literal_discount_weights = (2.75, 3.5, 3.0)           # forgot the outer discount: 1 of 3
rloo_advantages = (0, -2.667, -1.333, 4)              # rounded within the tolerance: full
same_group_scale = "7/8"                              # a string: malformed, nothing
truncation_reset_flags = {"bootstrap": False, "recursion_continues": False, "terminated": True, "trace_cut": True}
past_reward_weight = " A "                            # labels ignore case and spaces: full
ppo_worked_example = (1, 1, -0.05, 0.1438)            # active fraction wrong: 3 of 4
response_mask_rows = [[0, 0, 0, 1, 1, 1], [0, 1, 1, 0, 0, 0]]   # first row unshifted: 1 of 2
implementation_notes = (False, True, True)            # one entry short: malformed, nothing
rloo_grpo_features = ["BOTH", "neither", "rloo", "grpo", "grpo", "both", "both"]   # item 6 accepts both: full
backward_pass_costs = ("linear", "linear")           # a stack for the backward pass: 1 of 2
reinforce_variance_statements = (True,) * 4          # variance from the probabilities alone: 3 of 4
score_vector_action_2 = __import__("numpy").array([-0.6652, -0.2447, 0.91])        # full
optimal_baseline_scores = ((0.2, -0.2), (-0.8, 0.8), (0.2828, 1.1314))  # norms not squared: 2 of 3
"""
EXPECTED = dict(
    POINTS,
    score_identity_correct=0.0,
    policy_loss_tokens=1.0,
    direct_dependence_statements=1.5,
    baseline_validity=1.8,
    literal_discount_weights=round(2 / 3, 6),
    same_group_scale=0.0,
    truncation_reset_flags=1.0,
    ppo_worked_example=2.25,
    response_mask_rows=1.0,
    implementation_notes=0.0,
    optimal_baseline_scores=round(4 / 3, 6),
    backward_pass_costs=0.5,
    reinforce_variance_statements=1.5,
)

# Answers the grader cannot use: each must earn nothing and say what format it expects.
MALFORMED = """\
score_identity_correct = {2, 7}                   # an option that does not exist
policy_loss_tokens = 2                            # a number, not a set
direct_dependence_statements = (1, 0, 1, 0)       # integers, not booleans
reinforce_transition_cases = "TFTFF"              # a string
past_reward_weight = "e"                          # not a label
literal_discount_weights = (2.75, 1.75)           # too short
baseline_validity = ("unbiased", "ok", "unbiased", "biased", "scaled")
same_group_scale = True                           # a boolean is not a number
rloo_advantages = lambda: 0                       # cannot cross the boundary at all
truncation_reset_flags = {1: True}                # a dict with non-string keys cannot cross it either
buffer_boundary_flags = {"bootstrap": True, "terminated": False, "trace_cut": True}   # a key missing
single_done_flag_bias = ("lower", 3)
lab_gae_advantages = ((8.0, 100.0),)              # the wrong shape
ppo_clip_interval = {"low": 0.8, "high": 1.2}     # a dict, not a tuple
response_mask_rows = (0, 0, 1, 1, 1, 0)           # one row where two are asked
del score_vector_action_2                         # not defined at all
"""
MALFORMED_ITEMS = [
    line.split()[0] if not line.startswith("del ") else line.split()[1] for line in MALFORMED.splitlines()
]


@pytest.fixture(scope="module")
def grades(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("concept-checks")
    broken = tmp / "broken"
    broken.mkdir()
    (broken / f"{SHEET}.py").write_text("score_identity_correct = {2, 4\n", encoding="utf-8")
    key, stub, mistakes, malformed, not_importable = grade_json(
        COURSE.solutions_dir,
        COURSE.exercises_dir,
        sheet(tmp, "mistakes", MISTAKES),
        sheet(tmp, "malformed", MALFORMED),
        broken,
        only=ITEMS,
    )
    return {"key": key, "stub": stub, "mistakes": mistakes, "malformed": malformed, "broken": not_importable}


def failures(result: dict, item: str) -> list[str]:
    return [t["message"] for t in result["functions"][item]["tests"] if not t["passed"]]


# -- grading ------------------------------------------------------------------------------
def test_the_key_earns_full_marks(grades):
    result = grades["key"]
    assert set(result["functions"]) == set(ITEMS)
    assert result["total"] == result["max"] == sum(POINTS.values())
    for item, f in result["functions"].items():
        assert f["error"] is None and all(t["passed"] for t in f["tests"]), item


def test_the_generated_sheet_earns_nothing_and_says_so(grades):
    result = grades["stub"]
    assert result["total"] == 0
    for item in ITEMS:
        messages = failures(result, item)
        assert messages and all(m.startswith(f"{item} is not answered yet: replace None with") for m in messages)


def test_known_mistakes_earn_the_exact_partial_score(grades):
    result = grades["mistakes"]
    scores = {item: f["score"] for item, f in result["functions"].items()}
    assert scores == EXPECTED
    assert result["total"] == pytest.approx(sum(EXPECTED.values()), abs=1e-6)
    assert result["total"] == pytest.approx(41.55, abs=1e-6)


def test_each_miss_is_explained_by_its_own_explanation(grades):
    result = grades["mistakes"]
    statements = question("direct_dependence_statements")
    assert failures(result, "direct_dependence_statements") == [
        f"statement 2: {statements.explanations['statement_2']}"
    ]
    # Multiple select: both credit parts fail, each naming the wrong pick and the missed option.
    identity = question("score_identity_correct")
    expected = "; ".join(f"option {o}: {identity.explanations[o]}" for o in (3, 4))
    assert failures(result, "score_identity_correct") == [expected, expected]
    weights = question("literal_discount_weights")
    assert failures(result, "literal_discount_weights") == [
        f"t1: {weights.explanations['t1']}",
        f"t2: {weights.explanations['t2']}",
    ]
    flags = question("truncation_reset_flags")
    assert failures(result, "truncation_reset_flags") == [
        f"bootstrap: {flags.explanations['bootstrap']}",
        f"terminated: {flags.explanations['terminated']}",
    ]
    # Passing parts carry no message; a fully right item none at all.
    assert failures(result, "rloo_advantages") == [] and failures(result, "past_reward_weight") == []


def test_malformed_answers_come_back_as_messages(grades):
    result = grades["malformed"]
    for item in MALFORMED_ITEMS:
        f = result["functions"][item]
        assert f["score"] == 0, item
        messages = failures(result, item)
        assert messages and "Traceback" not in " ".join(messages), item
        if item == "score_vector_action_2":
            assert f["error"] == "not defined" and "not defined in your submission" in messages[0]
            continue
        assert f["error"] is None, item
        fmt = question(item).format
        assert all(m.startswith(item) and m.endswith(f"write {fmt}") for m in messages), (item, messages)
    # Untouched items of the same sheet are still graded normally.
    untouched = set(ITEMS) - set(MALFORMED_ITEMS)
    assert untouched and all(result["functions"][i]["score"] == POINTS[i] for i in untouched)


def test_specific_format_problems_are_named(grades):
    result = grades["malformed"]
    assert "7 is not one of the options" in failures(result, "score_identity_correct")[0]
    assert "entry 1 is 1, not True or False" in failures(result, "direct_dependence_statements")[0]
    assert "'e', which is not one of the choices" in failures(result, "past_reward_weight")[0]
    assert "shape (2,), the question asks for (3,)" in failures(result, "literal_discount_weights")[0]
    assert "the key 'recursion_continues' is missing" in failures(result, "buffer_boundary_flags")[0]
    assert "cannot be graded" in failures(result, "rloo_advantages")[0]


def test_a_sheet_that_does_not_import_loses_every_item_with_a_message(grades):
    result = grades["broken"]
    assert result["total"] == 0
    for item in ITEMS:
        assert result["functions"][item]["error"].startswith("could not import concept_checks.py")


# -- the grading arithmetic, without a worker ------------------------------------------------------
class Sheet:
    """Stands in for ``impl``: answers are given directly, as the worker would return them."""

    def __init__(self, **answers):
        self.answers = answers

    def value(self, name):
        return self.answers[name]


def earned(q, answer) -> float:
    passed = 0
    for part in q.parts():
        try:
            q.check(Sheet(**{q.name: answer}), part)
            passed += 1
        except Misconception:
            pass
    return passed / len(q.parts())


@pytest.mark.parametrize(
    "answer, share",
    [
        ({2, 4}, 1.0),
        ({4}, 0.5),
        ({2, 4, 1}, 0.5),
        ({1, 2, 3, 4, 5}, 0.0),
        (set(), 0.0),
        ({1, 3, 5}, 0.0),
        (frozenset({2, 4}), 1.0),
        ([4, 2, 2], 1.0),
        ((2,), 0.5),
    ],
)
def test_multiple_select_credit_is_net_right_picks_over_key_size(answer, share):
    q = question("score_identity_correct")
    assert isinstance(q, MultiSelect) and earned(q, answer) == share


def test_numeric_answers_use_the_course_tolerance():
    q = question("same_group_scale")
    assert isinstance(q, Numeric)
    assert COURSE.exercise("same_group_scale").tolerance.atol == 1e-3
    assert earned(q, 0.8755) == 1.0 and earned(q, 0.877) == 0.0 and earned(q, 7 / 8) == 1.0
    assert earned(q, float("nan")) == 0.0


# -- the course side: schema, stubs, leaks ------------------------------------------------------
def test_every_item_is_a_hidden_answer_with_its_question():
    assert len(ITEMS) >= 20
    for e in ASSIGNMENT.exercises:
        # Visible: a check of the answer's format only (tests/test_answer_formats.py).
        assert e.kind == "answer" and e.module == SHEET and e.visible, e.function
        assert question(e.function).name == e.function
    assert set(ITEMS) == answer_names(COURSE.solutions_dir / f"{SHEET}.py")


def test_format_comments_in_solutions_and_stub_match_the_questions():
    solution = (COURSE.solutions_dir / f"{SHEET}.py").read_text(encoding="utf-8")
    stub = (COURSE.exercises_dir / f"{SHEET}.py").read_text(encoding="utf-8")
    for item in ITEMS:
        fmt = question(item).format
        assert re.search(rf"^{item} = .*  # format: {re.escape(fmt)}$", solution, re.M), item
        assert re.search(rf"^{item} = None  # your answer: {re.escape(fmt)}$", stub, re.M), item


def test_neither_the_key_nor_the_explanations_reach_exercises():
    released = {p: p.read_text(encoding="utf-8") for p in COURSE.exercises_dir.rglob("*.py")}
    stub = released[COURSE.exercises_dir / f"{SHEET}.py"]
    assert "### BEGIN SOLUTION" not in stub and "### END SOLUTION" not in stub
    for item in ITEMS:
        assignments = re.findall(rf"^{item}\s*=\s*(.*)$", stub, re.M)
        assert len(assignments) == 1 and assignments[0].startswith("None  #"), item
        for explanation in question(item).explanations.values():
            probe = explanation[:60]
            for path, text in released.items():
                assert probe not in text, f"{path} holds an explanation of {item}"


# -- stub generation of answer regions ---------------------------------------------------------------
def test_module_level_region_becomes_an_unanswered_template():
    source = textwrap.dedent('''\
        """Sheet."""
        # Question: which?
        ### BEGIN SOLUTION
        # reasoning that must stay private
        alpha = {1, 2}  # format: a set of option numbers
        beta: tuple = (0.8,
                       1.2)
        gamma = delta = "x"  # the answer is x
        ### END SOLUTION
        after = 3
        ''')
    stub = stub_source(source, "solutions/sheet.py")
    body = stub.split('"""Sheet."""\n', 1)[1]
    assert body == (
        "# Question: which?\n"
        "alpha = None  # your answer: a set of option numbers\n"
        f"beta = None  # your answer: {ANSWER_FALLBACK}\n"
        f"gamma = None  # your answer: {ANSWER_FALLBACK}\n"
        f"delta = None  # your answer: {ANSWER_FALLBACK}\n"
        "after = 3\n"
    )
    assert stub.startswith("# Your answers: replace every `= None`")
    namespace: dict = {}
    exec(compile(stub, "sheet.py", "exec"), namespace)
    assert namespace["alpha"] is None and namespace["after"] == 3


def test_a_file_with_functions_and_answers_keeps_both_headers():
    source = "def f():\n    ### BEGIN SOLUTION\n    return 1\n    ### END SOLUTION\n\n\n### BEGIN SOLUTION\nx = 1\n### END SOLUTION\n"
    stub = stub_source(source, "m.py")
    assert stub.startswith("# Your file: implement every function") and "# Your answers:" in stub
    assert 'raise NotImplementedError("f is not implemented yet' in stub and "x = None  # your answer:" in stub


@pytest.mark.parametrize(
    "region, problem",
    [
        ("def f():\n    return 1\n", "may hold only `NAME = value` answers"),
        ("import os\n", "may hold only `NAME = value` answers"),
        ("x.y = 1\n", "may hold only `NAME = value` answers"),
        ("a, b = 1, 2\n", "may hold only `NAME = value` answers"),
        ("x: int\n", "may hold only `NAME = value` answers"),
        ("# only a comment\n", "holds no `NAME = value` answer"),
    ],
)
def test_answer_regions_hold_only_assignments(region, problem):
    source = f"### BEGIN SOLUTION\n{region}### END SOLUTION\n"
    with pytest.raises(CourseError, match=re.escape(problem)) as info:
        stub_source(source, "solutions/bad.py")
    assert str(info.value).startswith("solutions/bad.py:")


def test_indented_region_outside_a_function_is_refused():
    source = "if True:\n    ### BEGIN SOLUTION\n    x = 1\n    ### END SOLUTION\n"
    with pytest.raises(CourseError, match="must sit inside a function, or at module level"):
        stub_source(source, "solutions/bad.py")


def test_a_statement_crossing_the_markers_is_refused():
    source = "x = (1,\n### BEGIN SOLUTION\n     2)\ny = 3\n### END SOLUTION\n"
    with pytest.raises(CourseError, match="crosses the solution region's markers"):
        stub_source(source, "solutions/bad.py")


# -- course.yaml validation of kind: answer ------------------------------------------------------------
COURSE_YAML = """\
course: {id: c, title: T, module: 4, module_title: M}
assignments:
  - id: q
    title: Q
    exercises:
      - {function: NAME, module: sheet, kind: answer, points: 1}
"""
SHEET_SOURCE = """\
outside = 1


def helper():
    ### BEGIN SOLUTION
    inside_function = 2
    ### END SOLUTION
    return inside_function


### BEGIN SOLUTION
answered = 3
### END SOLUTION
"""


@pytest.mark.parametrize(
    "name, problem",
    [
        ("answered", None),
        ("outside", "must be assigned at module level inside a ### BEGIN SOLUTION region"),
        ("helper", "must be assigned at module level inside a ### BEGIN SOLUTION region"),
        ("inside_function", "does not exist in solutions/sheet.py"),
    ],
)
def test_answer_exercises_name_a_constant_of_an_answer_region(tmp_path, name, problem):
    (tmp_path / "solutions").mkdir()
    (tmp_path / "solutions" / "sheet.py").write_text(SHEET_SOURCE, encoding="utf-8")
    (tmp_path / "course.yaml").write_text(COURSE_YAML.replace("NAME", name), encoding="utf-8")
    if problem is None:
        assert load_course(tmp_path, check_tests=False).exercise(name).kind == "answer"
        return
    with pytest.raises(CourseError, match=re.escape(problem)) as info:
        load_course(tmp_path, check_tests=False)
    assert str(info.value).startswith("course.yaml:6:")


def test_the_release_copy_of_the_sheet_is_what_students_fill_in(tmp_path):
    """A student's filled-in copy of exercises/ is graded like the key (sanity of the round trip)."""
    filled = tmp_path / "filled"
    shutil.copytree(COURSE.exercises_dir, filled, ignore=shutil.ignore_patterns("__pycache__"))
    text = (filled / f"{SHEET}.py").read_text(encoding="utf-8")
    key = (COURSE.solutions_dir / f"{SHEET}.py").read_text(encoding="utf-8")
    answers = re.findall(r"^### BEGIN SOLUTION\n(.*?)^### END SOLUTION\n", key, re.M | re.S)
    (filled / f"{SHEET}.py").write_text(text + "\n" + "".join(answers), encoding="utf-8")
    (result,) = grade_json(filled, only=ITEMS)
    assert result["total"] == result["max"]
