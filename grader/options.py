"""Command-line options shared by several commands (kept light: no heavy imports)."""

from __future__ import annotations

import argparse
from pathlib import Path

# Where `grader build` writes the nbgrader course directory, inside the course repository.
DEFAULT_COURSE_DIR = "course-build"


def course_dir_option(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--course-dir", metavar="DIR", default=None,
                        help=f"the nbgrader course directory (default: {DEFAULT_COURSE_DIR}/ in the course "
                             "repository; a relative DIR is taken from the current directory)")


def resolve_course_dir(course, value: str | None) -> Path:
    return (course.root / DEFAULT_COURSE_DIR) if value is None else Path(value).resolve()
