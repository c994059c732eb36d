"""Generate the student files of ``exercises/`` from ``solutions/``.

Every ``### BEGIN SOLUTION`` ... ``### END SOLUTION`` region becomes one
``raise NotImplementedError`` naming its function; everything else (signatures,
docstrings, constants, course-provided helpers) is kept as it is. Files without a
solution region are course-provided code and are copied with a note saying so.

Answer regions. A region whose markers sit at module level (no indentation, not
inside a function) is an answer sheet: it may hold only ``NAME = value``
assignments (comments and blank lines are allowed and dropped). Each assigned
name becomes an unanswered template ``NAME = None  # your answer: <format>``,
where ``<format>`` is the text of a ``# format: ...`` comment on the first line
of that assignment (a generic line when there is none). Nothing else of the
region reaches the student: the value is the key, and comments inside it may
hold the reasoning. ``course.yaml`` exercises of ``kind: answer`` name such
constants; the hidden tests read them with ``impl.value(NAME)``::

    ### BEGIN SOLUTION
    clip_interval = (0.8, 1.2)  # format: a tuple (low, high) of two numbers
    ### END SOLUTION

becomes ``clip_interval = None  # your answer: a tuple (low, high) of two numbers``.
"""

from __future__ import annotations

import ast
import io
import tokenize
from pathlib import Path

from grader.core.course import BEGIN_SOLUTION, END_SOLUTION, Course
from grader.errors import CourseError

STUDENT_HEADER = (
    "# Your file: implement every function that raises NotImplementedError.\n"
    "# Check your work with `grader check` (visible tests); hidden tests run when it is graded.\n"
    "# Generated from the course's reference solutions by `grader stubs`.\n"
)
PROVIDED_HEADER = (
    "# Course-provided code: you do not need to change this file.\n"
    "# Generated from the course's reference solutions by `grader stubs`.\n"
)
ANSWER_HEADER = (
    "# Your answers: replace every `= None` with your answer, in the format its comment gives.\n"
    "# Answers are graded when your work is graded; the feedback explains every miss.\n"
)
ANSWER_FORMAT = "format:"
ANSWER_FALLBACK = "replace None with your answer to the question above"
SKIP_PARTS = {"__pycache__", ".ipynb_checkpoints", ".pytest_cache"}


def not_implemented_line(function: str, indent: str) -> str:
    return f'{indent}raise NotImplementedError("{function} is not implemented yet: replace this line with your code")'


def _enclosing_functions(tree: ast.AST) -> list[tuple[int, int, str]]:
    spans = []
    for node in ast.walk(tree):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            spans.append((node.lineno, node.end_lineno, node.name))
    return spans


def has_solution_regions(source: str) -> bool:
    return any(line.strip() == BEGIN_SOLUTION for line in source.splitlines())


def _format_comments(source: str) -> dict[int, str]:
    """Line number -> text of a ``# format: ...`` comment on that line."""
    found = {}
    try:
        for tok in tokenize.generate_tokens(io.StringIO(source).readline):
            if tok.type == tokenize.COMMENT:
                text = tok.string.lstrip("#").strip()
                if text.startswith(ANSWER_FORMAT):
                    found[tok.start[0]] = text[len(ANSWER_FORMAT) :].strip()
    except (tokenize.TokenError, SyntaxError):  # the ast parse has already vouched for the source
        pass
    return found


def answer_templates(tree: ast.Module, formats: dict[int, str], begin: int, end: int, label: str) -> list[str]:
    """The unanswered template lines of the module-level region between lines ``begin`` and ``end``.

    ``formats`` is :func:`_format_comments` of the file (tokenised once per file, not per region).

    Raises
    ------
    CourseError
        If the region holds anything but ``NAME = value`` assignments, or none.
    """
    lines = []
    for node in tree.body:
        if node.end_lineno < begin or node.lineno > end:
            continue
        if not begin < node.lineno <= node.end_lineno < end:
            raise CourseError(f"{label}:{node.lineno}: a statement crosses the solution region's markers")
        targets = node.targets if isinstance(node, ast.Assign) else [getattr(node, "target", None)]
        if (
            not isinstance(node, (ast.Assign, ast.AnnAssign))
            or node.value is None
            or not all(isinstance(t, ast.Name) for t in targets)
        ):
            raise CourseError(
                f"{label}:{node.lineno}: a module-level solution region may hold only `NAME = value` answers"
            )
        hint = formats.get(node.lineno, ANSWER_FALLBACK)
        lines.extend(f"{t.id} = None  # your answer: {hint}" for t in targets)
    if not lines:
        raise CourseError(f"{label}:{begin}: a module-level solution region holds no `NAME = value` answer")
    return lines


def stub_source(source: str, label: str) -> str:
    """The student version of one solutions file.

    Raises
    ------
    CourseError
        For unbalanced markers or a region outside any function, naming file and line.
    """
    try:
        tree = ast.parse(source, filename=label)
    except SyntaxError as exc:
        raise CourseError(f"{label}:{exc.lineno}: syntax error: {exc.msg}") from None
    spans = _enclosing_functions(tree)
    lines = source.splitlines()
    out: list[str] = []
    # (line of BEGIN, owning function; None for a module-level answer region)
    inside: tuple[int, str | None] | None = None
    functions = answers = False
    formats: dict[int, str] | None = None  # tokenised on the first answer region only
    for number, line in enumerate(lines, start=1):
        marker = line.strip()
        if marker == BEGIN_SOLUTION:
            if inside is not None:
                raise CourseError(f"{label}:{number}: {BEGIN_SOLUTION} inside the region opened at line {inside[0]}")
            owners = [s for s in spans if s[0] < number <= s[1]]
            indent = line[: len(line) - len(line.lstrip())]
            if not owners:
                if indent:
                    raise CourseError(
                        f"{label}:{number}: a solution region must sit inside a function, "
                        "or at module level around `NAME = value` answers"
                    )
                inside, answers = (number, None), True
                continue
            function = max(owners, key=lambda s: s[0])[2]
            out.append(not_implemented_line(function, indent))
            inside, functions = (number, function), True
        elif marker == END_SOLUTION:
            if inside is None:
                raise CourseError(f"{label}:{number}: {END_SOLUTION} without a matching {BEGIN_SOLUTION}")
            if inside[1] is None:
                if formats is None:
                    formats = _format_comments(source)
                out.extend(answer_templates(tree, formats, inside[0], number, label))
            inside = None
        elif inside is None:
            out.append(line)
    if inside is not None:
        raise CourseError(f"{label}:{inside[0]}: {BEGIN_SOLUTION} is never closed")
    if answers and not functions:
        header = ANSWER_HEADER + STUDENT_HEADER.splitlines(keepends=True)[-1]
    elif answers:
        header = STUDENT_HEADER + ANSWER_HEADER
    else:
        header = STUDENT_HEADER if has_solution_regions(source) else PROVIDED_HEADER
    return header + "\n".join(out) + "\n"


def solution_files(root: Path) -> list[Path]:
    """Every file under ``root`` (the solutions directory) that stubs are made from."""
    return sorted(
        p
        for p in root.rglob("*")
        if p.is_file() and not (SKIP_PARTS & set(p.relative_to(root).parts)) and p.suffix not in (".pyc",)
    )


def generate(course: Course) -> dict[Path, bytes]:
    """Relative path under exercises/ -> content, for every file of solutions/."""
    files: dict[Path, bytes] = {}
    for path in solution_files(course.solutions_dir):
        rel = path.relative_to(course.solutions_dir)
        if path.suffix == ".py":
            files[rel] = stub_source(path.read_text(encoding="utf-8"), f"solutions/{rel}").encode("utf-8")
        else:
            files[rel] = path.read_bytes()
    return files


def stale_files(course: Course) -> list[str]:
    """Differences between exercises/ and what `grader stubs` would write."""
    expected = generate(course)
    problems = []
    for rel, content in expected.items():
        target = course.exercises_dir / rel
        if not target.is_file():
            problems.append(f"exercises/{rel}: missing")
        elif target.read_bytes() != content:
            problems.append(f"exercises/{rel}: out of date")
    if course.exercises_dir.is_dir():
        for path in course.exercises_dir.rglob("*"):
            rel = path.relative_to(course.exercises_dir)
            if path.is_file() and not (SKIP_PARTS & set(rel.parts)) and rel not in expected and path.suffix != ".pyc":
                problems.append(f"exercises/{rel}: not generated from solutions/ (remove it)")
    return sorted(problems)


def write_stubs(course: Course) -> list[Path]:
    """Write exercises/ and remove files that no longer have a source; return written paths."""
    expected = generate(course)
    written = []
    for rel, content in expected.items():
        target = course.exercises_dir / rel
        target.parent.mkdir(parents=True, exist_ok=True)
        if not target.is_file() or target.read_bytes() != content:
            target.write_bytes(content)
            written.append(target)
    for path in sorted(course.exercises_dir.rglob("*"), reverse=True):
        rel = path.relative_to(course.exercises_dir)
        if SKIP_PARTS & set(rel.parts):
            continue
        if path.is_file() and rel not in expected:
            path.unlink()
        elif path.is_dir() and not any(path.iterdir()):
            path.rmdir()
    return written
