"""The blind corpora (tests/data/blind/, blind2/, blind3/, blind4/) are well formed: what bench_blind.py and its labels rely on.

Grading them is a benchmark (``benchmarks/bench_blind.py``) and ``tests/test_blind.py``: these checks only read files.
"""

import ast
import re
from pathlib import Path

import pytest
import yaml

from grader.core.course import load_course

ROOT = Path(__file__).resolve().parents[1]
CORPORA = [ROOT / "tests" / "data" / name for name in ("blind", "blind2", "blind3", "blind4")]
ENTRIES = sorted(p for corpus in CORPORA for p in corpus.glob("*/*.py"))


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
    assert re.fullmatch(r"[a-z0-9_]+", path.stem)
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
def test_verdicts_judge_every_wrong_entry(corpus):
    labels = yaml.safe_load((corpus / "labels.yaml").read_text(encoding="utf-8"))
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
            if v["verdict"] != "wrong" and not set(v.get("causes") or []) <= set(labels[e])
        }
        assert not foreign, f"{path.name}: cause ids outside the labels: {foreign}"
