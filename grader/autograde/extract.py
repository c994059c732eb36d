"""From a submitted notebook to modules shaped like ``exercises/``.

Only the solution cells count, found by their grade id (the exercise's name);
every other cell a student wrote or changed is ignored. Each module is the
course-provided code of the course (never the student's copy of it) followed by
the student's cells. A cell that does not compile is left out with a note, so one
syntax error costs only its own exercise. For a lab, the student's ``.py``
modules from the submission folder are used as they are.
"""

from __future__ import annotations

import json
import re
import shutil
from dataclasses import dataclass, field
from pathlib import Path

import nbformat

from grader.feedback import GENERAL
from grader.build.segments import ModuleParts, assignment_modules
from grader.course import Assignment, Course

MAGIC = re.compile(r"^\s*(%|!)")


@dataclass
class CellSpan:
    """Where an exercise's cell landed in its module (1-based, inclusive)."""

    module: str
    first: int
    last: int


@dataclass
class Extraction:
    """Modules written for one submission, with what the student should know about them."""

    directory: Path
    notes: dict[str, list[str]] = field(default_factory=dict)
    spans: dict[str, CellSpan] = field(default_factory=dict)
    readable: bool = True

    def note(self, function: str, text: str) -> None:
        self.notes.setdefault(function, []).append(text)


def read_notebook(path: Path) -> tuple[nbformat.NotebookNode | None, str | None]:
    """The notebook at ``path``, or None and the reason it cannot be read."""
    try:
        text = path.read_text(encoding="utf-8")
    except UnicodeDecodeError:
        return None, f"{path.name} is not a text file"
    try:
        data = json.loads(text)
    except ValueError as exc:
        return None, f"{path.name} is not valid notebook JSON ({exc}); it may have been damaged when saved"
    try:
        nb = nbformat.from_dict(data)
        if nb.get("nbformat", 4) < 4:
            nb = nbformat.convert(nb, 4)
        if not isinstance(nb.get("cells"), list):
            raise ValueError("no list of cells")
    except Exception as exc:  # any malformed structure: say so, never stop the class
        return None, f"{path.name} is not a notebook nbgrader can read ({exc})"
    return nb, None


def solution_cells(nb: nbformat.NotebookNode) -> dict[str, str]:
    """grade id -> source of the solution cells; a duplicated id keeps the last cell, as nbgrader does."""
    found: dict[str, str] = {}
    for cell in nb.get("cells", []):
        meta = (cell.get("metadata") or {}).get("nbgrader") or {}
        grade_id = meta.get("grade_id")
        if grade_id and meta.get("solution") and not meta.get("grade"):
            source = cell.get("source", "")
            found[str(grade_id)] = "".join(source) if isinstance(source, list) else str(source)
    return found


def clean_cell(source: str) -> tuple[str, int]:
    """IPython magics and shell lines become comments (they are not Python); returns how many."""
    lines, changed = [], 0
    for line in source.splitlines():
        if MAGIC.match(line):
            indent = line[: len(line) - len(line.lstrip())]
            lines.append(f"{indent}pass  # notebook-only line left out: {line.strip()}")
            changed += 1
        else:
            lines.append(line)
    return "\n".join(lines), changed


def compile_problem(source: str, function: str) -> str | None:
    try:
        compile(source, f"<cell {function}>", "exec", dont_inherit=True)
    except SyntaxError as exc:
        return f"line {exc.lineno}: {exc.msg}"
    except ValueError as exc:  # e.g. null bytes
        return str(exc)
    return None


def module_text(parts: ModuleParts, cells: list[tuple[str, str]], spans: dict[str, CellSpan]) -> str:
    """Course-provided code first, then each cell; records where every cell starts and ends."""
    head = [f'"""{parts.name}: extracted from a notebook by `grader autograde` (course code first, then the cells)."""']
    head += parts.future
    prelude = parts.prelude_text()
    text = "\n".join(head) + "\n\n" + (prelude + "\n" if prelude else "")
    for function, source in cells:
        text += f"\n\n# --- the cell of {function} ---\n"
        first = text.count("\n") + 1
        body = source.rstrip("\n")
        text += body + "\n"
        spans[function] = CellSpan(parts.name, first, first + body.count("\n"))
    return text


def extract_submission(course: Course, assignment: Assignment, notebooks: list[nbformat.NotebookNode | None],
                       problems: list[str], submission_dir: Path | None, dest: Path,
                       student_modules: list[str] = (), modules: dict[str, ModuleParts] | None = None) -> Extraction:
    """Write the modules of one submission into ``dest`` (emptied first).

    ``notebooks`` are the submission's notebooks that could be read, ``problems``
    why others could not; ``submission_dir`` holds a lab's ``.py`` modules.
    ``modules`` is :func:`assignment_modules` of the assignment: the same for every
    student, so a class computes it once (it is computed here when not given).
    """
    if dest.exists():
        shutil.rmtree(dest)
    dest.mkdir(parents=True)
    ex = Extraction(directory=dest)
    for problem in problems:
        ex.note(GENERAL, problem)
    cells: dict[str, str] = {}
    for nb in notebooks:
        if nb is not None:
            cells.update(solution_cells(nb))
    if not notebooks and not problems:
        ex.note(GENERAL, "the submission has no notebook")
    if problems and not any(nb is not None for nb in notebooks):
        ex.readable = False

    # A lab is graded from the student's modules: copy the ones the course hands out.
    if submission_dir is not None and submission_dir.is_dir():
        for rel in student_modules:
            source = submission_dir / rel
            if source.is_file():
                (dest / rel).parent.mkdir(parents=True, exist_ok=True)
                shutil.copyfile(source, dest / rel)

    if modules is None:
        modules = assignment_modules(course, assignment)
    by_module: dict[str, list[tuple[str, str]]] = {}
    for e in assignment.exercises:
        if e.kind == "lab":
            continue
        source = cells.get(e.function)
        if source is None:
            if any(nb is not None for nb in notebooks):
                ex.note(e.function, f"the notebook has no cell for {e.function} (was it deleted, or its "
                                    "metadata changed?)")
            by_module.setdefault(e.module, [])
            continue
        source, magics = clean_cell(source)
        if magics:
            ex.note(e.function, f"{magics} IPython magic or shell line(s) in the cell of {e.function} were "
                                "left out (they are not Python)")
        problem = compile_problem(source, e.function)
        if problem:
            ex.note(e.function, f"the cell of {e.function} has a syntax error ({problem}); it was left out, "
                                f"so {e.function} could not be graded")
            by_module.setdefault(e.module, [])
            continue
        by_module.setdefault(e.module, []).append((e.function, source))
    for module, module_cells in by_module.items():
        if module in modules:
            (dest / f"{module}.py").write_text(module_text(modules[module], module_cells, ex.spans), encoding="utf-8")
    return ex


def notebooks_of(submission_dir: Path, names: list[str]) -> tuple[list, list[str]]:
    """Read the assignment's notebooks from a submission folder."""
    notebooks, problems = [], []
    for name in names:
        path = submission_dir / name
        if not path.is_file():
            problems.append(f"the submission has no {name}")
            continue
        nb, problem = read_notebook(path)
        if problem:
            problems.append(problem)
        notebooks.append(nb)
    return notebooks, problems

