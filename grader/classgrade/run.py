"""The submissions of a class: one subdirectory or ``.py`` file per student."""

from __future__ import annotations

from pathlib import Path

from grader.engine.store import SAFE_ID
from grader.errors import GraderError
from grader.untrusted import shown

SKIP_NAMES = {"__pycache__", "__MACOSX"}


def discover_submissions(directory: Path, skipped: dict[str, str] | None = None) -> dict[str, Path]:
    """``{student: path}``: each subdirectory, or .py file, of ``directory`` is one submission.

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

    for entry in sorted(directory.iterdir()):
        if entry.name.startswith(".") or entry.name in SKIP_NAMES:
            continue
        if entry.is_symlink():
            if entry.is_dir() or entry.suffix == ".py":
                skip(entry, "a symbolic link; links are never followed (hand in the folder or file itself)")
            continue
        if entry.is_dir():
            student = entry.name
        elif entry.is_file() and entry.suffix == ".py":
            student = entry.stem
        else:
            continue
        if not SAFE_ID.match(student):
            skip(entry, "a student id may hold letters, digits and . _ @ + - only (at most 100)")
        elif student in found or (skipped is not None and student in skipped):
            # Two entries for one student: grading either would be a guess.
            first = found.pop(student, None)
            skip(Path(student), f"two submissions for {student!r} ({first.name if first else 'another'} and "
                                f"{shown(entry.name)}); neither is graded")
        else:
            found[student] = directory.resolve() / entry.name
    if not found and not skipped:
        raise GraderError(f"{directory} holds no submissions (one subdirectory or .py file per student)")
    return found
