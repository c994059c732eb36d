"""The submissions of a class: one subdirectory or ``.py`` file per student."""

from __future__ import annotations

from pathlib import Path

from grader.engine.store import SAFE_ID
from grader.errors import GraderError
from grader.untrusted import shown

SKIP_NAMES = {"__pycache__", "__MACOSX"}


def notebook_student(stem: str, assignments) -> str:
    """The student of a notebook handed in as a file: ``jack_ps4b`` -> ``jack`` (LMS downloads name
    files so), otherwise the name itself."""
    for assignment in sorted(assignments, key=len, reverse=True):
        if stem.endswith("_" + assignment) and len(stem) > len(assignment) + 1:
            return stem[: -len(assignment) - 1]
    return stem


def discover_submissions(
    directory: Path, skipped: dict[str, str] | None = None, assignments=None
) -> dict[str, Path | tuple[Path, ...]]:
    """``{student: path}``: each subdirectory, or .py file, of ``directory`` is one submission.

    With ``assignments`` (the course's ids), notebooks count too: ``<student>_<assignment>.ipynb``
    (or ``<student>.ipynb``); one student's several notebook files are one submission, a tuple
    of paths.

    An entry that cannot be graded (a symbolic link, which is never followed; a name that
    is not a usable student id; a second entry for one student) raises, or, when
    ``skipped`` is given, is recorded there (printable name -> reason) and left out.
    """
    directory = Path(directory)
    if not directory.is_dir():
        raise GraderError(f"not a directory of submissions: {directory}")
    found: dict[str, Path] = {}

    def skip(entry: Path, reason: str) -> None:
        if skipped is None:
            raise GraderError(f"{shown(entry)}: {reason}")
        skipped[shown(entry.name)] = reason

    notebooks: dict[str, list[Path]] = {}
    suffixes = (".py", ".ipynb") if assignments is not None else (".py",)
    for entry in sorted(directory.iterdir()):
        if entry.name.startswith(".") or entry.name in SKIP_NAMES:
            continue
        if entry.is_symlink():
            if entry.is_dir() or entry.suffix in suffixes:
                skip(entry, "a symbolic link; links are never followed (hand in the folder or file itself)")
            continue
        if entry.is_dir():
            student = entry.name
        elif entry.is_file() and entry.suffix == ".py":
            student = entry.stem
        elif entry.is_file() and entry.suffix in suffixes:
            student = notebook_student(entry.stem, assignments)
            if student in notebooks and student in found:  # another notebook of the same student: one submission
                notebooks[student].append(directory.resolve() / entry.name)
                found[student] = tuple(notebooks[student])
                continue
            if SAFE_ID.match(student) and student not in found:
                notebooks[student] = [directory.resolve() / entry.name]
        else:
            continue
        if not SAFE_ID.match(student):
            skip(entry, "a student id may hold letters, digits and . _ @ + - only (at most 100)")
        elif student in found or (skipped is not None and student in skipped):
            # Two entries for one student: grading either would be a guess.
            first = found.pop(student, None)
            skip(
                Path(student),
                f"two submissions for {student!r} ({shown(first.name) if isinstance(first, Path) else 'another'} and "
                f"{shown(entry.name)}); neither is graded",
            )
        else:
            found[student] = directory.resolve() / entry.name
    if not found and not skipped:
        raise GraderError(f"{directory} holds no submissions (one subdirectory or .py file per student)")
    return found
