"""Stage a submission for the worker: a private copy in the shape the grader expects.

- A directory submission: its ``.py`` files are copied (other files are ignored).
- A single ``.py`` file: copied, plus one small module per course module that
  re-exports it, so ``import gae`` works whatever the file is called.
- Course-provided files (solutions files without a solution region, e.g. the lab
  code) are always taken from the course's ``exercises/``, never from the
  submission: a student cannot change how their functions are driven.
"""

from __future__ import annotations

import ast
import functools
import keyword
import os
import shutil
import stat
from pathlib import Path

from grader.core.course import Course, kit_manifest
from grader.core.stubs import SKIP_PARTS, has_solution_regions, solution_files
from grader.errors import GraderError

# The module a lone .py file is staged as when its own name is no Python identifier (my-work.py).
SINGLE_FILE_MODULE = "submission"
MAX_SUBMISSION_BYTES = 20 * 1024 * 1024
# Entries of any kind (files, folders, links) the walk of a folder submission lists. Empty files
# pass every byte bound: 100,000 of them held a class of two for 43 s. A submission holds tens.
MAX_SUBMISSION_ENTRIES = 5_000


class SubmissionRefused(GraderError):
    """A submission the grader will not run, by the student's doing (more code or more files than a
    submission may hold): it earns zero, with this message, and the class goes on."""


def course_provided_files(course: Course) -> tuple[Path, ...]:
    """Paths (relative to solutions/) of files students receive ready-made. In a student kit (no
    solutions/): those its build listed (``provided`` of :func:`kit_manifest`), else the files of
    exercises/ that hold no function or answer exercise."""
    if not course.solutions_dir.is_dir():
        listed = kit_manifest(course.root).get("provided")
        if isinstance(listed, list):
            return tuple(Path(rel) for rel in listed if isinstance(rel, str))
        graded = {e.module for e in course.exercises if e.kind != "lab"}
        return tuple(
            p.relative_to(course.exercises_dir)
            for p in sorted(course.exercises_dir.glob("*.py"))
            if p.stem not in graded
        )
    return _provided_files(course.solutions_dir)


def lab_modules(course: Course, lab: str) -> tuple[str, ...]:
    """The students' modules a lab's course code imports (``from gae import gae_advantages``), in the
    order it imports them: what the lab runs of a submission. Read from the course's copy of that code."""
    exercise = course.exercise(lab)
    path = course.exercises_dir / f"{exercise.module}.py"
    provided = {rel.stem for rel in course_provided_files(course) if rel.suffix == ".py"}
    students = {p.stem for p in course.exercises_dir.glob("*.py")} - provided
    found = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))) if path.is_file() else []:
        names = [node.module] if isinstance(node, ast.ImportFrom) and node.level == 0 else []
        names += [a.name for a in node.names] if isinstance(node, ast.Import) else []
        found += [(node.lineno, n) for n in names if n in students]
    return tuple(dict.fromkeys(n for _, n in sorted(found)))


@functools.lru_cache(maxsize=None)
def _provided_files(solutions_dir: Path) -> tuple[Path, ...]:
    # Scanned once per course and process, not once per student staged.
    provided = []
    for path in solution_files(solutions_dir):
        if path.suffix != ".py" or not has_solution_regions(path.read_text(encoding="utf-8")):
            provided.append(path.relative_to(solutions_dir))
    return tuple(provided)


def submission_files(submission: Path) -> list[Path]:
    """The files of a submission that grading reads, in a fixed order.

    A directory contributes its ``.py`` files, hidden and cache folders left out.
    Symbolic links are never followed: a link to a file the student may not read
    (the course's solutions, say) must not be copied into the sandbox. Only regular
    files count (a named pipe called ``gae.py`` is not one).
    """
    submission = Path(submission)
    if submission.is_symlink():
        raise GraderError(f"{submission} is a symbolic link; hand in the file or folder itself")
    if submission.is_file():
        return [submission]
    found, listed = [], 0
    pending = [submission]  # folders still to list, the next one last: the order of a top-down os.walk
    while pending:
        folder = pending.pop()
        dirs, files = [], []
        with os.scandir(folder) as entries:
            for entry in entries:
                # Counted as listed, so the walk stops at the bound whatever one folder holds.
                listed += 1
                if listed > MAX_SUBMISSION_ENTRIES:
                    raise SubmissionRefused(
                        f"{submission.name}: more than {MAX_SUBMISSION_ENTRIES:,} files and "
                        "folders; hand in your code only"
                    )
                # Linked folders are never entered (is_dir without following links), like os.walk.
                (dirs if entry.is_dir(follow_symlinks=False) else files).append(entry.name)
        for name in sorted(files):
            path = Path(folder) / name
            # Regular files only: a named pipe would block whoever reads it, a device worse.
            if name.endswith(".py") and not name.startswith(".") and stat.S_ISREG(path.lstat().st_mode):
                found.append(path)
        kept = sorted(d for d in dirs if d not in SKIP_PARTS and not d.startswith("."))
        pending.extend(Path(folder) / d for d in reversed(kept))
    return found


def stage_submission(course: Course, submission: Path, dest: Path) -> Path:
    """Copy ``submission`` into the empty directory ``dest``; return ``dest``."""
    submission = Path(submission)
    files = submission_files(submission)
    dest.mkdir(parents=True, exist_ok=True)
    if submission.is_dir():
        total = 0
        for path in files:
            total += path.stat().st_size
            if total > MAX_SUBMISSION_BYTES:
                raise GraderError(f"{submission}: more than {MAX_SUBMISSION_BYTES >> 20} MB of Python files")
            rel = path.relative_to(submission)
            (dest / rel).parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(path, dest / rel)
    elif submission.is_file():
        if submission.stat().st_size > MAX_SUBMISSION_BYTES:
            raise GraderError(f"{submission}: more than {MAX_SUBMISSION_BYTES >> 20} MB of Python")
        stem = submission.stem
        if not stem.isidentifier() or keyword.iskeyword(stem):
            stem = SINGLE_FILE_MODULE  # `from my-work import *` is no Python: stage it under a name that is
        shutil.copyfile(submission, dest / f"{stem}.py")
        for module in course.modules:
            if module != stem:
                (dest / f"{module}.py").write_text(f"from {stem} import *  # noqa: F401,F403\n", encoding="utf-8")
    else:
        raise GraderError(f"submission not found: {submission}")
    for rel in course_provided_files(course):
        source = course.exercises_dir / rel
        if source.is_file():
            (dest / rel).parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(source, dest / rel)
    return dest
