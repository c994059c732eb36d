"""The blind corpora (tests/data/blind/, blind2/ ... blind5/) are well formed: what bench_blind.py and its labels rely on.

Grading them is a benchmark (``benchmarks/bench_blind.py``) and ``tests/course/test_blind.py``: these checks only read files.
"""

import ast
import json
import re

import pytest
import yaml

from grader.core.course import load_course
from tests.helpers import ROOT

CORPORA = [ROOT / "tests" / "data" / name for name in ("blind", "blind2", "blind3", "blind4", "blind5")]
ENTRIES = sorted(p for corpus in CORPORA for p in corpus.glob("*/*.py"))


def read_yaml(path):
    """A corpus's YAML mapping; empty when the file is missing (only blind5 has an also.yaml)."""
    return (yaml.safe_load(path.read_text(encoding="utf-8")) or {}) if path.is_file() else {}


def wrong_entries(corpus):
    """``function/name`` of the corpus's wrong entries: the keys of its labels and verdicts."""
    return {f"{p.parent.name}/{p.stem}" for p in corpus.glob("*/*.py") if not p.stem.startswith("correct_")}


@pytest.mark.parametrize("corpus", CORPORA, ids=lambda c: c.name)
def test_every_function_exercise_has_wrong_and_correct_entries(corpus):
    course = load_course(ROOT, check_tests=False)
    functions = {e.function for e in course.exercises if e.kind == "function"}
    by_function = {}
    for path in corpus.glob("*/*.py"):
        by_function.setdefault(path.parent.name, []).append(path.stem)
    assert set(by_function) == functions
    for function, names in by_function.items():
        assert sum(not n.startswith("correct_") for n in names) >= 5, function  # blind2 has 5 for some
        assert any(n.startswith("correct_") for n in names), function


@pytest.mark.parametrize("path", ENTRIES, ids=lambda p: f"{p.parent.parent.name}/{p.parent.name}/{p.stem}")
def test_entry_is_one_function_with_a_one_line_statement(path):
    tree = ast.parse(path.read_text(encoding="utf-8"))
    statement = ast.get_docstring(tree, clean=False)
    assert statement and "\n" not in statement, "the module docstring is one line"
    # A plain identifier (blind5 keeps the module's symbols: sequence_mean_over_L, rloo_divides_by_G), unique in its
    # folder even where case is not told apart.
    assert re.fullmatch(r"[A-Za-z0-9_]+", path.stem)
    assert [p.stem.lower() for p in path.parent.glob("*.py")].count(path.stem.lower()) == 1
    assert statement.startswith("correct: ") == path.stem.startswith("correct_")
    defined = [n.name for n in tree.body if isinstance(n, ast.FunctionDef)]
    assert defined == [path.parent.name], "one definition, of the function its folder names"


@pytest.mark.parametrize("corpus", CORPORA, ids=lambda c: c.name)
def test_labels_cover_the_wrong_entries_and_name_catalogue_mistakes(corpus):
    labels = yaml.safe_load((corpus / "labels.yaml").read_text(encoding="utf-8"))
    assert set(labels) == wrong_entries(corpus)
    for entry, mistakes in labels.items():
        for mistake in mistakes:
            assert (ROOT / "autograder-tests" / "mistakes" / entry.split("/")[0] / f"{mistake}.py").is_file(), (
                f"{entry}: {mistake} is no known mistake of its function"
            )


@pytest.mark.parametrize("corpus", CORPORA, ids=lambda c: c.name)
def test_second_deviations_are_apart_from_the_labels_and_give_a_reason(corpus):
    """also.yaml: entry -> {catalogue mistake: why the code has it too}, never one of the entry's labels (labels stay
    the strict 'same mistake as the statement'; a second deviation is accepted beside them, not folded in)."""
    labels = read_yaml(corpus / "labels.yaml")
    for entry, causes in read_yaml(corpus / "also.yaml").items():
        assert entry in labels, f"{entry} is no wrong entry of {corpus.name}"
        for cause, reason in causes.items():
            assert (ROOT / "autograder-tests" / "mistakes" / entry.split("/")[0] / f"{cause}.py").is_file(), (
                f"{entry}: {cause} is no known mistake of its function"
            )
            assert cause not in labels[entry], f"{entry}: {cause} is a label already"
            assert isinstance(reason, str) and reason.strip(), f"{entry}: {cause} has no reason"


@pytest.mark.parametrize("corpus", CORPORA, ids=lambda c: c.name)
def test_strict_verdicts_judge_every_wrong_entry_on_the_measured_messages(corpus):
    """<side>_strict.yaml (blind5): both readings of every wrong entry's first message, which is the table's."""
    tables = {"before": "main_c0fe73f.json", "after": "after.json"}
    accepted = read_yaml(corpus / "labels.yaml")
    also = read_yaml(corpus / "also.yaml")
    for side, table in tables.items():
        path = corpus / f"{side}_strict.yaml"
        if not path.is_file():
            continue
        verdicts = read_yaml(path)
        assert set(verdicts) == wrong_entries(corpus), path.name
        rows = {row["entry"]: row for row in json.loads((corpus / table).read_text(encoding="utf-8"))}
        for entry, v in verdicts.items():
            assert {v["verdict"], v["verdict_first_statement"]} <= {"right", "generic", "wrong"}, entry
            assert (v["first_message"], v["causes"]) == (rows[entry]["first_message"], rows[entry]["causes"]), entry
            foreign = set(v["causes"]) - set(accepted[entry]) - set(also.get(entry, {}))
            assert not foreign or v["verdict"] == "wrong", (
                f"{path.name}: {entry} names {foreign}, judged {v['verdict']}"
            )


@pytest.mark.parametrize("corpus", CORPORA, ids=lambda c: c.name)
def test_verdicts_judge_every_wrong_entry(corpus):
    labels = read_yaml(corpus / "labels.yaml")
    also = read_yaml(corpus / "also.yaml")
    files = [corpus / name for name in ("before.yaml", "after.yaml") if (corpus / name).is_file()]
    assert files[0].name == "before.yaml"
    for path in files:
        verdicts = yaml.safe_load(path.read_text(encoding="utf-8"))
        assert set(verdicts) == wrong_entries(corpus), path.name
        assert {v["verdict"] for v in verdicts.values()} <= {"right", "generic", "wrong"}, path.name
        assert all(isinstance(v["first_message"], str) for v in verdicts.values()), path.name
        # A cause id outside the entry's labels is a cause it does not have: only a "wrong" verdict may record one.
        foreign = {
            e: v["causes"]
            for e, v in verdicts.items()
            if v["verdict"] != "wrong" and not set(v.get("causes") or []) <= set(labels[e]) | set(also.get(e, {}))
        }
        assert not foreign, f"{path.name}: cause ids outside the labels: {foreign}"
