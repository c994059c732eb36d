"""Notebook cells with nbgrader metadata, and the text that goes into them.

Cell ids are derived from grade ids or positions (never random), so building the
same course twice writes the same notebooks.
"""

from __future__ import annotations

import ast
import hashlib
import re
import textwrap

import nbformat

from grader.core.course import Course, Exercise
from grader.notebooks import notebook_runtime

HIDDEN_BEGIN = "### BEGIN HIDDEN TESTS"
HIDDEN_END = "### END HIDDEN TESTS"
SECTION = re.compile(r"^(Parameters|Returns|Yields|Raises|Warns|Examples|See Also|References|Attributes|Methods)\s*$")
NOTES = re.compile(r"^Notes\s*$")
USES_GRADER = re.compile(r"^\s*(from|import)\s+grader\b", re.M)


def _nbgrader(grade_id: str, *, grade=False, solution=False, locked=False, points=None) -> dict:
    meta = {
        "grade": grade,
        "grade_id": grade_id,
        "locked": locked,
        "schema_version": 3,
        "solution": solution,
        "task": False,
    }
    if grade:
        meta["points"] = float(points)
    return meta


def _cell_id(text: str) -> str:
    cleaned = re.sub(r"[^A-Za-z0-9_-]", "-", text)
    return cleaned if len(cleaned) <= 64 else cleaned[:52] + "-" + hashlib.sha1(text.encode()).hexdigest()[:11]


def markdown(source: str, cell_id: str, *, locked: bool = True) -> nbformat.NotebookNode:
    """A Markdown cell; locked ones are read-only in the released notebook."""
    cell = nbformat.v4.new_markdown_cell(source.strip() + "\n" if source.strip() else "")
    cell.id = _cell_id(cell_id)
    cell.source = cell.source.rstrip("\n")
    if locked:
        cell.metadata["nbgrader"] = _nbgrader(cell.id, locked=True)
    return cell


def provided_code(source: str, grade_id: str, *, hidden_source: bool = False) -> nbformat.NotebookNode:
    """A read-only code cell of course-provided code."""
    cell = nbformat.v4.new_code_cell(source.rstrip("\n"))
    cell.id = _cell_id(grade_id)
    cell.metadata["nbgrader"] = _nbgrader(grade_id, locked=True)
    if hidden_source:
        cell.metadata["jupyter"] = {"source_hidden": True}
    return cell


def solution_code(source: str, function: str) -> nbformat.NotebookNode:
    """The cell a student edits; its grade id is the exercise's name."""
    cell = nbformat.v4.new_code_cell(source.rstrip("\n"))
    cell.id = _cell_id(function)
    cell.metadata["nbgrader"] = _nbgrader(function, solution=True)
    return cell


def manual_answer(source: str, grade_id: str, points: float) -> nbformat.NotebookNode:
    """An nbgrader manually graded answer: a Markdown cell that is a solution and a grade cell."""
    cell = nbformat.v4.new_markdown_cell(source.rstrip("\n"))
    cell.id = _cell_id(grade_id)
    cell.metadata["nbgrader"] = _nbgrader(grade_id, grade=True, solution=True, points=points)
    return cell


def test_grade_id(function: str) -> str:
    return f"test_{function}"


def exercise_of_grade(grade_id: str) -> str | None:
    """The exercise an autograded cell's grade id names (:func:`test_grade_id`), or None."""
    prefix = test_grade_id("")
    return grade_id[len(prefix) :] if grade_id.startswith(prefix) and len(grade_id) > len(prefix) else None


def autograded_code(source: str, function: str, points: float) -> nbformat.NotebookNode:
    """The locked cell that carries an exercise's points (visible and hidden tests)."""
    grade_id = test_grade_id(function)
    cell = nbformat.v4.new_code_cell(source.rstrip("\n"))
    cell.id = _cell_id(grade_id)
    cell.metadata["nbgrader"] = _nbgrader(grade_id, grade=True, locked=True, points=points)
    return cell


# -- text ------------------------------------------------------------------------------
def rst_to_markdown(text: str) -> str:
    """The little reStructuredText the docstrings use, as Markdown."""
    text = re.sub(r":(?:func|class|meth|mod|attr|data|obj):`~?([^`]+)`", r"`\1`", text)
    text = re.sub(r"``([^`]+)``", r"`\1`", text)
    return text


def docstring_context(doc: str | None) -> str:
    """The prose of a numpy-style docstring: the summary, the description and its Notes."""
    if not doc:
        return ""
    lines = doc.splitlines()
    keep: list[str] = []
    skipping = False
    for i, line in enumerate(lines):
        underline = i + 1 < len(lines) and set(lines[i + 1].strip()) == {"-"}
        if underline and SECTION.match(line.strip()):
            skipping = True
            continue
        if underline and NOTES.match(line.strip()):
            skipping = False
            keep.append("")
            continue
        if (
            set(line.strip()) == {"-"}
            and i > 0
            and (SECTION.match(lines[i - 1].strip()) or NOTES.match(lines[i - 1].strip()))
        ):
            continue
        if not skipping:
            keep.append(line)
    return rst_to_markdown("\n".join(keep).strip())


def segment_docstring(segment: str) -> str | None:
    """Docstring of the function or class in a segment, or the comments above a constant."""
    try:
        tree = ast.parse(segment)
    except SyntaxError:
        return None
    for node in tree.body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            return ast.get_docstring(node)
    comments = [
        line.strip()[2:] if line.strip().startswith("# ") else line.strip()[1:]
        for line in segment.splitlines()
        if line.strip().startswith("#") and "SOLUTION" not in line
    ]
    return "\n".join(comments) or None


def question_text(comments: str | None) -> str:
    """A question written as a comment block, as a Markdown code block (its layout matters)."""
    if not comments:
        return ""
    lines = [line for line in comments.splitlines() if set(line.strip()) - {"-", "="}]
    return "```text\n" + "\n".join(lines).strip("\n") + "\n```"


def helper_source() -> str:
    """The visible-test runner that the notebook defines in a read-only cell."""
    with open(notebook_runtime.__file__, encoding="utf-8") as handle:
        return handle.read()


def test_functions(source: str) -> list[str]:
    """Names of the top-level test functions of a test file, in order."""
    try:
        tree = ast.parse(source)
    except SyntaxError:
        return []
    return [
        n.name
        for n in tree.body
        if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef)) and n.name.startswith("test")
    ]


def _without_docstring(source: str) -> str:
    tree = ast.parse(source)
    if (
        tree.body
        and isinstance(tree.body[0], ast.Expr)
        and isinstance(getattr(tree.body[0], "value", None), ast.Constant)
    ):
        lines = source.splitlines()
        return "\n".join(lines[tree.body[0].end_lineno :]).strip("\n")
    return source.strip("\n")


def file_digest(path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()[:16] if path.is_file() else "none"


def visible_tests_code(course: Course, exercise: Exercise) -> str:
    """Source of the visible part of an autograded cell: the tests, then a call that runs them."""
    name = exercise.function
    path = course.visible_test_file(name)
    source = path.read_text(encoding="utf-8") if exercise.visible and path.is_file() else ""
    names = test_functions(source)
    head = [
        f"# Visible checks of {name}: run this cell after the cell above.",
        "# More checks (hidden tests) run on your code when the notebook is graded.",
    ]
    if exercise.kind == "lab":
        head.append(f"from {exercise.module} import {name}  # the lab runs your .py modules")
    body = _without_docstring(source) if names else ""
    call = f"run_visible_tests({name!r}, [{', '.join(names)}])"
    if USES_GRADER.search(body):
        # These checks need the course's grader (trusted helpers): without it, say so instead of failing.
        inner = textwrap.indent(body + "\n\n" + call, "    ")
        without = (
            "the sections above already exercise your modules."
            if exercise.kind == "lab"
            else "install the course's student kit (see the course README) to check the format of your answer."
        )
        return "\n".join(head) + (
            "\nfrom importlib.util import find_spec\n\n"
            'if find_spec("grader") is None:\n'
            f'    print("The checks of {name} use the course\'s grader package, which is not installed here; "\n'
            f'          "{without}")\n'
            "else:\n" + inner
        )
    return "\n".join(head) + ("\n\n" + body if body else "") + "\n\n" + call


def hidden_tests_region(course: Course, exercise: Exercise) -> str:
    """The hidden tests, as an inert commented region nbgrader strips from the release.

    They are comments on purpose: the trusted grader runs them in its own process,
    so nothing here may ever execute in a student's kernel, even if someone runs
    the instructor's notebook with nbgrader's default Execute step.
    """
    path = course.hidden_test_file(exercise.function)
    source = path.read_text(encoding="utf-8") if path.is_file() else ""
    rel = path.relative_to(course.root).as_posix()
    lines = [
        HIDDEN_BEGIN,
        f"# Hidden tests of {exercise.function}: {rel} (sha256 {file_digest(path)}).",
        "# `grader autograde` runs them in the trusted grader, never in this kernel; shown for instructors.",
    ]
    if source.strip():
        lines.append("#")
        lines += [("# " + line).rstrip() for line in source.rstrip("\n").splitlines()]
    else:
        lines.append("# (no hidden tests yet: this exercise scores zero until they exist)")
    lines.append(HIDDEN_END)
    return "\n".join(lines)


def check_cell(course: Course, exercise: Exercise) -> nbformat.NotebookNode:
    """An exercise's autograded cell: its visible checks, then its hidden tests as an inert region."""
    source = visible_tests_code(course, exercise) + "\n" + hidden_tests_region(course, exercise)
    return autograded_code(source, exercise.function, exercise.points)
