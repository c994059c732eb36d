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


def db_option(parser: argparse.ArgumentParser, *, written: bool = False) -> None:
    """``--db URL``: the gradebook's database, as nbgrader's own ``--db``."""
    effect = ("and write it to nbgrader_config.py, so every later nbgrader and grader command (formgrader "
              "included) uses it" if written else "for this run only (as nbgrader's --db)")
    parser.add_argument("--db", metavar="URL", default=None,
                        help="the gradebook database, an SQLAlchemy URL such as "
                             "postgresql://grader@db.example.org/course (password from ~/.pgpass or PGPASSWORD), "
                             f"{effect}; default: CourseDirectory.db_url of nbgrader's configuration, else "
                             "sqlite:///<course-dir>/gradebook.db")
