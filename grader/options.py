"""Command-line options shared by several commands (kept light: no heavy imports)."""

from __future__ import annotations

import argparse
import os
from pathlib import Path

# Where `grader build` writes the nbgrader course directory, inside the course repository.
DEFAULT_COURSE_DIR = "course-build"


def course_dir_option(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--course-dir",
        metavar="DIR",
        default=None,
        help=f"the nbgrader course directory (default: {DEFAULT_COURSE_DIR}/ in the course "
        "repository; a relative DIR is taken from the current directory)",
    )


def resolve_course_dir(course, value: str | None) -> Path:
    return (course.root / DEFAULT_COURSE_DIR) if value is None else Path(value).resolve()


# The shapes of LMS downloads grader.lms reads (grader.lms.shapes.LMS_SHAPES): detected, one LMS's, or
# <student>_<anything>.
LMS_NAMES = ("auto", "canvas", "moodle", "blackboard", "brightspace", "generic")


def lms_options(parser: argparse.ArgumentParser, *, zip_help: str) -> None:
    """``--zip``, ``--lms``, ``--name-regexp`` and ``--roster``: how an LMS download is collected (grader.lms)."""
    parser.add_argument("--zip", metavar="FILE", default=None, help=zip_help)
    parser.add_argument(
        "--lms",
        choices=LMS_NAMES,
        default="auto",
        help="which LMS made the download (default: auto, recognised from the file names; generic: "
        "<student>_<anything>, <student>/<file>)",
    )
    parser.add_argument(
        "--name-regexp",
        metavar="REGEX",
        default=None,
        help="how a file name gives the student, for a shape no --lms knows, e.g. "
        r"'(?P<student_id>\w+)_(?P<file_id>.+)' (default: <student>_<anything>)",
    )
    parser.add_argument(
        "--roster",
        metavar="CSV",
        default=None,
        help="who the download's students are (a CSV with id,name,email,lms_id: see `grader roster`); "
        "each is filed under the roster's id, the others by the LMS's id (canvas-<user id>, ...)",
    )


# Where `--scheduler` comes from when it is not given.
SCHEDULER_ENV = "GRADER_SCHEDULER"


def engine_options(parser: argparse.ArgumentParser, *, jobs_help: str) -> None:
    """``-j/--jobs`` and ``--scheduler``: where grading happens (grade-class, autograde)."""
    parser.add_argument("-j", "--jobs", type=int, default=None, metavar="N", help=jobs_help)
    parser.add_argument(
        "--scheduler",
        metavar="ADDRESS",
        default=None,
        help=f"grade on the Dask cluster of this scheduler (e.g. tls://host:8786; default: "
        f"${SCHEDULER_ENV}, else on this machine). Its workers need the grader installed "
        "(pip install 'rl-llm-m4-grader[cluster]') and bubblewrap; see docs/cluster.md",
    )
    parser.add_argument(
        "--insecure",
        nargs=0,
        action=_Insecure,
        help="accept a plain tcp:// scheduler, even on 127.0.0.1 (anyone who reaches it, every "
        "user of this machine included, can join as a worker or client): on a machine and "
        "network you trust entirely only; otherwise use tls://",
    )


class _Insecure(argparse.Action):
    """``--insecure``: recorded where the cluster backend reads it ($GRADER_CLUSTER_INSECURE)."""

    def __call__(self, parser, namespace, values, option_string=None):
        os.environ["GRADER_CLUSTER_INSECURE"] = "1"
        setattr(namespace, self.dest, True)


def scheduler_address(value: str | None) -> str | None:
    """``--scheduler``, else ``$GRADER_SCHEDULER``, else None (grade on this machine)."""
    return value or os.environ.get(SCHEDULER_ENV) or None


def db_option(parser: argparse.ArgumentParser, *, written: bool = False) -> None:
    """``--db URL``: the gradebook's database, as nbgrader's own ``--db``."""
    effect = (
        "and write it to nbgrader_config.py, so every later nbgrader and grader command (formgrader included) uses it"
        if written
        else "for this run only (as nbgrader's --db)"
    )
    parser.add_argument(
        "--db",
        metavar="URL",
        default=None,
        help="the gradebook database, an SQLAlchemy URL such as "
        "postgresql://grader@db.example.org/course (password from ~/.pgpass or PGPASSWORD), "
        f"{effect}; default: CourseDirectory.db_url of nbgrader's configuration, else "
        "sqlite:///<course-dir>/gradebook.db",
    )
