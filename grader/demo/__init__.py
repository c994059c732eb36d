"""The embedded sample class: assemble it and grade it (what `make demo` runs)."""

from __future__ import annotations

import shutil
from pathlib import Path

from grader.core.course import Course

SAMPLE_CLASS = ("alice", "bob", "carol")


def assemble_sample_class(course: Course, dest: Path) -> dict[str, Path]:
    """Write the three sample submissions under ``dest``; return student -> directory."""
    if dest.exists():
        shutil.rmtree(dest)
    dest.mkdir(parents=True)
    ignore = shutil.ignore_patterns("__pycache__", "*.pyc")
    alice = dest / "alice"
    shutil.copytree(course.solutions_dir, alice, ignore=ignore)
    bob = dest / "bob"
    shutil.copytree(course.exercises_dir, bob, ignore=ignore)
    carol = dest / "carol"
    shutil.copytree(course.solutions_dir, carol, ignore=ignore)
    for changed in sorted((course.root / "examples" / "sample-class" / "carol").glob("*.py")):
        # A later definition replaces the reference one: carol's module is the reference
        # with her own versions of a few functions.
        with open(carol / changed.name, "a", encoding="utf-8") as out:
            out.write("\n\n# --- carol's own versions ---\n" + changed.read_text(encoding="utf-8"))
    return {"alice": alice, "bob": bob, "carol": carol}
