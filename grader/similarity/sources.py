"""A class's code, per student and function, from what the instructor has: folders of ``.py``
files, notebooks, or a graded nbgrader course.

Read as grading reads it (:mod:`grader.core.staging`, :mod:`grader.notebooks`): bounded, never
through a link, parsed and never run. Per function, a ``.py`` module that implements it wins over a
notebook cell, as in grading; a function left as the released stub has no code of its own.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass, field
from pathlib import Path

from grader.core.course import Course
from grader.core.staging import submission_files
from grader.errors import GraderError
from grader.notebooks.extract import check_notebook, clean_cell, found_solution_cells, parse_notebook, read_notebook
from grader.notebooks.submission import notebook_paths
from grader.similarity.code import function_code
from grader.untrusted import UntrustedFile, read_regular, shown

MAX_FILE_BYTES = 2 << 20  # one .py module of a submission
MAX_NOTEBOOK_BYTES = 32 << 20  # one notebook of an LMS download (outputs included)
SAFE_ID = re.compile(r"^[A-Za-z0-9._@+-]{1,100}$")
SKIP = {"__pycache__", "__MACOSX", ".ipynb_checkpoints"}


@dataclass
class Submission:
    """One student's code for the course's functions, and what could not be read."""

    student: str
    code: dict[str, str] = field(default_factory=dict)  # function -> its definition (docstring cut)
    where: dict[str, str] = field(default_factory=dict)  # function -> the file (and cell) it came from
    problems: list[str] = field(default_factory=list)


def read_submission(course: Course, student: str, path: Path, functions: list[str]) -> Submission:
    """The code of ``functions`` in the submission at ``path`` (a folder, a ``.py`` file or a notebook)."""
    found = Submission(student)
    path = Path(path)
    try:
        files = [] if path.suffix == ".ipynb" else [p for p in submission_files(path) if p.suffix == ".py"]
    except (GraderError, OSError) as exc:
        found.problems.append(str(exc))
        files = []
    modules = {course.exercise(f).module for f in functions}
    # The course's module names first (what grading imports), then any other .py file.
    files.sort(key=lambda p: (p.stem not in modules, str(p)))
    for file in files:
        try:
            text = read_regular(file, MAX_FILE_BYTES).decode("utf-8", "replace")
        except (UntrustedFile, OSError) as exc:
            found.problems.append(f"{shown(file.name)}: {exc}")
            continue
        for function in functions:
            if function not in found.code:
                code = function_code(text, function)
                if code is not None:
                    found.code[function] = code
                    found.where[function] = shown(file.relative_to(path).as_posix() if path.is_dir() else file.name)
    try:
        notebooks = notebook_paths(path)
    except (UntrustedFile, OSError) as exc:
        found.problems.append(str(exc))
        notebooks = []
    for notebook in notebooks:
        data, problem = read_notebook(notebook)
        if problem:
            found.problems.append(problem)
            continue
        nb, _ = check_notebook(data, notebook.name)
        if nb is None:
            found.problems.append(f"{shown(notebook.name)}: not a notebook that can be read")
            continue
        for function, cell in found_solution_cells(nb, checked=True).items():
            if function in functions and function not in found.code:
                code = function_code(clean_cell(cell.source)[0], function)
                if code is not None:
                    found.code[function] = code
                    found.where[function] = f"{shown(notebook.name)}, cell {cell.number} ({cell.name})"
    return found


def lms_submissions(course: Course, download, functions: list[str]) -> dict[str, Submission]:
    """The code of ``functions`` in each submission of an LMS download (:func:`grader.lms.read_download`):
    each student by the LMS's own id, their ``.py`` files and notebooks read in memory, bounded."""
    found = {}
    for sub in download.submissions:
        code = Submission(sub.student)
        files = sorted(sub.files, key=lambda f: (not f.name.endswith(".py"), f.name))
        for file in files:
            if not file.name.endswith((".py", ".ipynb")):
                continue
            try:
                data = download.read(file, MAX_FILE_BYTES if file.name.endswith(".py") else MAX_NOTEBOOK_BYTES)
            except (GraderError, OSError) as exc:
                code.problems.append(f"{shown(file.name)}: {exc}")
                continue
            if file.name.endswith(".py"):
                _take(code, functions, {"": data.decode("utf-8", "replace")}, shown(file.name))
                continue
            raw, problem = parse_notebook(data, shown(file.name))  # bounded before it is parsed
            nb = check_notebook(raw, file.name)[0] if raw is not None else None
            if nb is None:
                code.problems.append(problem or f"{shown(file.name)}: not a notebook that can be read")
                continue
            cells = found_solution_cells(nb, checked=True)
            for function, cell in cells.items():
                if function in functions:
                    where = f"{shown(file.name)}, cell {cell.number} ({cell.name})"
                    _take(code, [function], {"": clean_cell(cell.source)[0]}, where)
        found[sub.student] = code
    return found


def _take(found: Submission, functions: list[str], texts: dict[str, str], where: str) -> None:
    for text in texts.values():
        for function in functions:
            if function not in found.code:
                code = function_code(text, function)
                if code is not None:
                    found.code[function] = code
                    found.where[function] = where


def class_folder(directory: Path, assignments: list[str]) -> tuple[dict[str, list[Path]], dict[str, str]]:
    """``{student: [paths]}`` of a folder of submissions (as ``grader grade-class`` takes it: one folder,
    ``.py`` file or ``<student>_<assignment>.ipynb`` per student), and what was left out (name -> why)."""
    directory = Path(directory)
    if not directory.is_dir():
        raise GraderError(f"not a folder of submissions: {directory}")
    found: dict[str, list[Path]] = {}
    skipped: dict[str, str] = {}
    for entry in sorted(os.scandir(directory), key=lambda e: e.name):
        name = entry.name
        if name.startswith(".") or name in SKIP:
            continue
        path = directory / name
        if entry.is_symlink():
            skipped[shown(name)] = "a symbolic link; links are never followed"
            continue
        if entry.is_dir():
            student = name
        elif entry.is_file() and path.suffix in (".py", ".ipynb"):
            student = path.stem
            for assignment in sorted(assignments, key=len, reverse=True):
                if student.endswith("_" + assignment) and len(student) > len(assignment) + 1:
                    student = student[: -len(assignment) - 1]
                    break
        else:
            continue
        if not SAFE_ID.match(student):
            skipped[shown(name)] = "not a usable student id (letters, digits and . _ @ + - only)"
            continue
        found.setdefault(student, []).append(path)
    return found, skipped


def read_paths(course: Course, student: str, paths: list[Path], functions: list[str]) -> Submission:
    """The code of ``functions`` over several paths of one student (a module and a notebook, say)."""
    merged = Submission(student)
    for path in paths:
        part = read_submission(course, student, path, [f for f in functions if f not in merged.code])
        merged.code.update(part.code)
        merged.where.update(part.where)
        merged.problems += part.problems
    return merged


def stub_code(course: Course, function: str) -> list[str]:
    """The released stub of ``function`` as students start from it (exercises/), for boilerplate."""
    stubs = []
    module = course.exercises_dir / f"{course.exercise(function).module}.py"
    if module.is_file():
        code = function_code(module.read_text(encoding="utf-8"), function)
        if code:
            stubs.append(code)
    return stubs


def is_nbgrader_course(path: Path) -> bool:
    return (Path(path) / "submitted").is_dir() and (Path(path) / "nbgrader_config.py").is_file()


def nbgrader_submissions(course_dir: Path, assignment: str) -> dict[str, list[Path]]:
    """``{student: [submitted/<student>/<assignment>/]}`` of an nbgrader course directory."""
    found = {}
    submitted = Path(course_dir) / "submitted"
    for entry in sorted(os.scandir(submitted), key=lambda e: e.name):
        folder = submitted / entry.name / assignment
        if entry.is_dir(follow_symlinks=False) and SAFE_ID.match(entry.name) and folder.is_dir():
            if not folder.is_symlink():
                found[entry.name] = [folder]
    return found
