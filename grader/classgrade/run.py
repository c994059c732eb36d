"""The submissions of a class: one subdirectory or ``.py`` file per student."""

from __future__ import annotations

from pathlib import Path

from grader.engine.store import SAFE_ID
from grader.errors import GraderError

SKIP_NAMES = {"__pycache__", "__MACOSX"}


def discover_submissions(directory: Path) -> dict[str, Path]:
    """``{student: path}``: each subdirectory, or .py file, of ``directory`` is one submission."""
    directory = Path(directory)
    if not directory.is_dir():
        raise GraderError(f"not a directory of submissions: {directory}")
    found: dict[str, Path] = {}
    for entry in sorted(directory.iterdir()):
        if entry.name.startswith(".") or entry.name in SKIP_NAMES:
            continue
        if entry.is_dir():
            student = entry.name
        elif entry.is_file() and entry.suffix == ".py":
            student = entry.stem
        else:
            continue
        if not SAFE_ID.match(student):
            raise GraderError(f"{entry}: a student id may hold letters, digits and . _ @ + - only")
        if student in found:
            raise GraderError(f"two submissions for {student!r}: {found[student].name} and {entry.name}")
        found[student] = entry.resolve()
    if not found:
        raise GraderError(f"{directory} holds no submissions (one subdirectory or .py file per student)")
    return found
