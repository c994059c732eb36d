"""Cut a solutions module into the pieces a notebook needs.

A module of ``solutions/`` becomes, in a notebook: its docstring (prose), the
course-provided top-level code (imports, constants, dataclasses, helpers; one
read-only cell) and one segment per exercise (a function, class or constant,
with its decorators, the comments right above it and a module-level solution
region around it, if any). Course-provided code is always taken from the
student version of the module (``grader stubs``), so it can never carry a
solution region.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass, field

from grader.core.course import BEGIN_SOLUTION, END_SOLUTION, Assignment, Course, module_regions
from grader.core.stubs import stub_source
from grader.errors import CourseError


@dataclass
class ModuleParts:
    """One module, cut up: ``prelude`` is course-provided, ``exercises`` are the graded pieces."""

    name: str
    docstring: str | None
    future: list[str] = field(default_factory=list)
    prelude: list[tuple[str, str]] = field(default_factory=list)  # (defined name or "", text)
    exercises: dict[str, str] = field(default_factory=dict)

    def prelude_text(self) -> str:
        return join_statements([text for _, text in self.prelude])


def defined_names(node: ast.stmt) -> list[str]:
    """Names a top-level statement defines (functions, classes, assigned names)."""
    if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
        return [node.name]
    if isinstance(node, ast.Assign):
        return [t.id for t in node.targets if isinstance(t, ast.Name)]
    if isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name):
        return [node.target.id]
    return []


def _is_docstring(node: ast.stmt) -> bool:
    return isinstance(node, ast.Expr) and isinstance(node.value, ast.Constant) and isinstance(node.value.value, str)


def _comments_above(lines: list[str], line: int) -> list[str]:
    """The block of comment lines right above 1-based ``line`` (a question above its answer)."""
    first = line
    while (
        first > 1
        and lines[first - 2].lstrip().startswith("#")
        and lines[first - 2].strip() not in (BEGIN_SOLUTION, END_SOLUTION)
    ):
        first -= 1
    return lines[first - 1 : line - 1]


def _span(node: ast.stmt, lines: list[str]) -> tuple[int, int]:
    """1-based inclusive line span of a node, with its decorators and the comments just above."""
    start = min([node.lineno] + [d.lineno for d in getattr(node, "decorator_list", [])])
    start -= len(_comments_above(lines, start))
    end = node.end_lineno
    # Comments that close the body (an indented ### END SOLUTION) are not part of the AST node.
    while end < len(lines) and lines[end].strip().startswith("#") and _indent(lines[end]) > node.col_offset:
        end += 1
    return start, end


def _indent(line: str) -> int:
    return len(line) - len(line.lstrip())


def _widen_to_region(span: tuple[int, int], lines: list[str]) -> tuple[int, int]:
    """Include a module-level solution region that wraps the statement exactly."""
    start, end = span
    before = start - 1
    while before >= 1 and not lines[before - 1].strip():
        before -= 1
    after = end + 1
    while after <= len(lines) and not lines[after - 1].strip():
        after += 1
    if (
        before >= 1
        and lines[before - 1].strip() == BEGIN_SOLUTION
        and after <= len(lines)
        and lines[after - 1].strip() == END_SOLUTION
    ):
        return before, after
    return span


def join_statements(texts: list[str]) -> str:
    """Top-level statements as one block: definitions get two blank lines around them."""
    out = ""
    previous_block = False
    for text in texts:
        block = text.lstrip().startswith(("def ", "class ", "@", "async def ", "#"))
        if out:
            out += "\n\n\n" if (block or previous_block) else "\n"
        out += text.rstrip("\n")
        previous_block = block
    return out


def split_module(name: str, source: str, student_source: str, exercises: set[str], label: str) -> ModuleParts:
    """Cut ``source`` (the reference module) and ``student_source`` (its stub) into parts.

    An answer inside a module-level region becomes its own segment: the question
    (the comments above the region), then the answer wrapped in its own markers.

    Raises
    ------
    CourseError
        If one statement defines several exercises.
    """
    tree = ast.parse(source, filename=label)
    lines = source.splitlines()
    docstring = ast.get_docstring(tree, clean=True)
    parts = ModuleParts(name=name, docstring=docstring)
    regions = module_regions(lines)
    questions_used: set[tuple[int, int]] = set()
    for node in tree.body:
        names = [n for n in defined_names(node) if n in exercises]
        if not names:
            continue
        if len(names) > 1:
            raise CourseError(
                f"{label}:{node.lineno}: one statement defines several exercises "
                f"({', '.join(names)}); give each its own statement"
            )
        region = next((r for r in regions if r[0] < node.lineno < r[1]), None)
        start, end = _span(node, lines)
        if region is not None:
            question = [] if region in questions_used else _comments_above(lines, region[0])
            questions_used.add(region)
            text = "\n".join(question + [BEGIN_SOLUTION] + lines[start - 1 : end] + [END_SOLUTION])
        else:
            start, end = _widen_to_region((start, end), lines)
            text = "\n".join(lines[start - 1 : end])
        if text.count(BEGIN_SOLUTION) != text.count(END_SOLUTION):
            raise CourseError(
                f"{label}:{start}: the solution region around {names[0]} also holds other "
                "statements; give each exercise its own region"
            )
        parts.exercises[names[0]] = text

    student_tree = ast.parse(student_source, filename=f"{label} (stub)")
    student_lines = student_source.splitlines()
    for i, node in enumerate(student_tree.body):
        if i == 0 and _is_docstring(node):
            continue
        names = defined_names(node)
        if any(n in exercises for n in names):
            continue
        start, end = _span(node, student_lines)
        text = "\n".join(student_lines[start - 1 : end])
        if isinstance(node, ast.ImportFrom) and node.module == "__future__":
            parts.future.append(text)
        else:
            parts.prelude.append((names[0] if names else "", text))
    return parts


def course_modules(course: Course, assignment_functions: set[str] | None = None) -> dict[str, ModuleParts]:
    """Every module of ``solutions/`` that defines an exercise, cut up.

    ``assignment_functions`` limits which exercises are cut out as segments; the
    course's other exercises stay in the prelude in their student (stub) form.
    """
    wanted = set(assignment_functions) if assignment_functions is not None else set(course.functions)
    modules: dict[str, ModuleParts] = {}
    # Only the modules that hold a wanted exercise: cutting a module means stubbing it, which
    # is what costs the time (an assignment touches a few of the course's modules).
    for module in dict.fromkeys(e.module for e in course.exercises if e.function in wanted):
        path = course.solutions_dir / f"{module}.py"
        if not course.solutions_dir.is_dir():  # a student kit: the stubs hold the same course-provided code
            path = course.exercises_dir / f"{module}.py"
        if not path.is_file():
            continue
        source = path.read_text(encoding="utf-8")
        label = f"{path.parent.name}/{module}.py"
        exercises = {e.function for e in course.exercises if e.module == module and e.function in wanted}
        modules[module] = split_module(module, source, stub_source(source, label), exercises, label)
    return modules


def assignment_modules(course: Course, assignment: Assignment) -> dict[str, ModuleParts]:
    """The modules an assignment's notebook cells go into (lab exercises have no cell)."""
    return course_modules(course, {e.function for e in assignment.exercises if e.kind != "lab"})


def student_segments(course: Course) -> dict[str, str]:
    """Exercise name -> the student version of its segment (what the release notebook shows)."""
    segments: dict[str, str] = {}
    for module in course.modules:
        path = course.solutions_dir / f"{module}.py"
        if not path.is_file():
            continue
        label = f"solutions/{module}.py"
        stub = stub_source(path.read_text(encoding="utf-8"), label)
        exercises = {e.function for e in course.exercises if e.module == module}
        # The stub has no regions, so cutting it "as the reference" gives the student segments.
        parts = split_module(module, stub, stub, exercises, f"{label} (stub)")
        segments.update(parts.exercises)
    return segments


def setup_code(modules: list[ModuleParts]) -> str:
    """The course-provided code of several modules as one cell.

    Identical imports are kept once; one name defined differently by two modules
    is an error (a notebook has a single namespace).
    """
    future: list[str] = []
    seen_text: set[str] = set()
    owner: dict[str, tuple[str, str]] = {}
    blocks: list[str] = []
    for parts in modules:
        for line in parts.future:
            if line not in future:
                future.append(line)
        texts = []
        for name, text in parts.prelude:
            if text in seen_text:
                continue
            if name and name in owner and owner[name][1] != text:
                raise CourseError(
                    f"solutions/{parts.name}.py and solutions/{owner[name][0]}.py both define "
                    f"{name!r} differently; one notebook cannot hold both"
                )
            if name:
                owner[name] = (parts.name, text)
            seen_text.add(text)
            texts.append(text)
        if texts:
            blocks.append(f"# --- from {parts.name}.py ---\n" + join_statements(texts))
    head = "\n".join(future)
    body = "\n\n\n".join(blocks)
    return (head + "\n\n" + body if head else body).strip() + "\n"
