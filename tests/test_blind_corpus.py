"""The blind corpus (tests/data/blind/) is well formed: what bench_blind.py and its labels rely on.

Grading it is a benchmark (``benchmarks/bench_blind.py``), not a test: these checks only read files.
"""

import ast
import re
from pathlib import Path

import pytest
import yaml

from grader.core.course import load_course

ROOT = Path(__file__).resolve().parents[1]
BLIND = ROOT / "tests" / "data" / "blind"
ENTRIES = sorted(BLIND.glob("*/*.py"))


def test_every_function_exercise_has_wrong_and_correct_entries():
    course = load_course(ROOT, check_tests=False)
    functions = {e.function for e in course.exercises if e.kind == "function"}
    by_function = {}
    for path in ENTRIES:
        by_function.setdefault(path.parent.name, []).append(path.stem)
    assert set(by_function) == functions
    for function, names in by_function.items():
        assert sum(not n.startswith("correct_") for n in names) >= 6, function
        assert any(n.startswith("correct_") for n in names), function


@pytest.mark.parametrize("path", ENTRIES, ids=lambda p: f"{p.parent.name}/{p.stem}")
def test_entry_is_one_function_with_a_one_line_statement(path):
    tree = ast.parse(path.read_text(encoding="utf-8"))
    statement = ast.get_docstring(tree, clean=False)
    assert statement and "\n" not in statement, "the module docstring is one line"
    assert re.fullmatch(r"[a-z0-9_]+", path.stem)
    assert statement.startswith("correct: ") == path.stem.startswith("correct_")
    defined = [n.name for n in tree.body if isinstance(n, ast.FunctionDef)]
    assert defined == [path.parent.name], "one definition, of the function its folder names"


def test_labels_cover_the_wrong_entries_and_name_catalogue_mistakes():
    labels = yaml.safe_load((BLIND / "labels.yaml").read_text(encoding="utf-8"))
    wrong = {f"{p.parent.name}/{p.stem}" for p in ENTRIES if not p.stem.startswith("correct_")}
    assert set(labels) == wrong
    for entry, mistakes in labels.items():
        for mistake in mistakes:
            assert (ROOT / "autograder-tests" / "mistakes" / entry.split("/")[0] / f"{mistake}.py").is_file(), \
                f"{entry}: {mistake} is no known mistake of its function"


def test_verdicts_judge_every_wrong_entry():
    verdicts = yaml.safe_load((BLIND / "before.yaml").read_text(encoding="utf-8"))
    wrong = {f"{p.parent.name}/{p.stem}" for p in ENTRIES if not p.stem.startswith("correct_")}
    assert set(verdicts) == wrong
    assert {v["verdict"] for v in verdicts.values()} <= {"right", "generic", "wrong"}
