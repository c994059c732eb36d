"""Command-line options shared by several commands (kept light: no heavy imports), and the one place
the grader reads its environment.

Every setting of a grading command is an option of its command line; an environment variable is only
that option's default, documented in :data:`ENVIRONMENT` (and in the table of docs/architecture.md,
"Settings"), and read here, once, when the command's line is read: nothing below the command line
reads the environment.
"""

from __future__ import annotations

import argparse
import os
from collections.abc import Mapping
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
        help="who the download's students are (a CSV with id,name,email,lms_id, and moodle_participants for "
        "Moodle: see `grader roster`); each is filed under the id of the line that holds its LMS id (never by "
        "name), the others by the LMS's id (canvas-<user id>, ...)",
    )


# Where `--scheduler` comes from when it is not given.
SCHEDULER_ENV = "GRADER_SCHEDULER"
CACHE_NAME = "rl-llm-m4-grader"  # the cache directory's name, in $XDG_CACHE_HOME or ~/.cache

# The environment variables the grader reads, each the default of one setting (its option).
ENVIRONMENT = {
    "GRADER_COURSE": "--course DIR: the course directory (else the nearest one above the current directory)",
    "GRADER_SCHEDULER": "--scheduler ADDRESS: grade on this Dask cluster",
    "GRADER_CLUSTER_CREDENTIALS": "--credentials DIR: the cluster's TLS credentials (grader cluster-credentials)",
    "GRADER_CLUSTER_INSECURE": "--insecure (when set): accept a plain tcp:// scheduler",
    "GRADER_CASES_CACHE": "--cache DIR: the grader's cache directory (0: none)",
    "XDG_CACHE_HOME": f"--cache: the cache directory is $XDG_CACHE_HOME/{CACHE_NAME} (default ~/.cache)",
    "GRADER_REPLAY": "--no-replay (when 0): every hidden test runs as a test",
    "GRADER_NO_BWRAP": "--no-bubblewrap (when set): grade as if bubblewrap were not installed",
    "GRADER_NO_CGROUPS": "--cgroups off (when set)",
    "GRADER_REQUIRE_CGROUPS": "--cgroups require (when set)",
}


def environment(environ: Mapping[str, str] | None = None) -> dict[str, str]:
    """The variables of :data:`ENVIRONMENT` that are set (the process's environment, unless ``environ``)."""
    environ = os.environ if environ is None else environ
    return {name: environ[name] for name in ENVIRONMENT if environ.get(name)}


def default_course() -> str | None:
    """``--course``'s default: ``$GRADER_COURSE``."""
    return environment().get("GRADER_COURSE")


def settings_options(parser: argparse.ArgumentParser, *, cache_only: bool = False) -> None:
    """The settings every grading command has: the cache, the replay, cgroups and bubblewrap (``cache_only``:
    the cache alone, for a command that runs no hidden test and no sandbox)."""
    group = parser.add_argument_group("settings (defaults from the environment: see docs/architecture.md)")
    group.add_argument(
        "--cache",
        metavar="DIR",
        default=None,
        help=f"the grader's cache directory: drawn property cases, the labs' reference records, the hidden "
        f"tests' traces (0: keep none; default: $GRADER_CASES_CACHE, else $XDG_CACHE_HOME/{CACHE_NAME} "
        f"or ~/.cache/{CACHE_NAME})",
    )
    if cache_only:
        return
    group.add_argument(
        "--no-replay",
        action="store_true",
        default=None,
        help="run every hidden test as a test, without replaying the reference's traces (the grades are the "
        "same; default: replay, unless $GRADER_REPLAY is 0)",
    )
    group.add_argument(
        "--cgroups",
        choices=("auto", "require", "off"),
        default=None,
        help="per-submission cgroups: where this machine allows them (auto), required with a required "
        "sandbox (require), or never (off); default: auto, or $GRADER_REQUIRE_CGROUPS / $GRADER_NO_CGROUPS",
    )
    group.add_argument(
        "--no-bubblewrap",
        action="store_true",
        default=None,
        help="grade as if bubblewrap were not installed (its fallback: as root, a user id of its own under "
        "the seccomp filter); default: use it, unless $GRADER_NO_BWRAP is set",
    )


def grading_settings(args: argparse.Namespace, environ: Mapping[str, str] | None = None) -> dict:
    """The settings of a grading command (``GradingOptions``' fields of the same names): each from its
    option when given, else from its environment variable (:data:`ENVIRONMENT`), else the default."""
    env = environment(environ)
    given = vars(args)
    cache = given.get("cache") or env.get("GRADER_CASES_CACHE")
    if cache is None:
        cache = Path(env.get("XDG_CACHE_HOME") or Path.home() / ".cache") / CACHE_NAME
    cgroups = given.get("cgroups") or (
        "require" if "GRADER_REQUIRE_CGROUPS" in env else "off" if "GRADER_NO_CGROUPS" in env else "auto"
    )
    credentials = given.get("credentials") or env.get("GRADER_CLUSTER_CREDENTIALS")
    return {
        "cache": None if str(cache) == "0" else Path(cache).resolve(),
        "replay": not given.get("no_replay") and env.get("GRADER_REPLAY") != "0",
        "cgroups": cgroups,
        "bubblewrap": not given.get("no_bubblewrap") and "GRADER_NO_BWRAP" not in env,
        "insecure": bool(given.get("insecure")) or "GRADER_CLUSTER_INSECURE" in env,
        "credentials": Path(credentials) if credentials else None,
    }


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
        action="store_true",
        help="accept a plain tcp:// scheduler, even on 127.0.0.1 (anyone who reaches it, every "
        "user of this machine included, can join as a worker or client): on a machine and "
        "network you trust entirely only; otherwise use tls:// (default: $GRADER_CLUSTER_INSECURE)",
    )
    parser.add_argument(
        "--credentials",
        metavar="DIR",
        default=None,
        help="the folder of the cluster's TLS credentials for a tls:// scheduler (made by `grader "
        "cluster-credentials`; default: $GRADER_CLUSTER_CREDENTIALS)",
    )
    settings_options(parser)


def scheduler_address(value: str | None) -> str | None:
    """``--scheduler``, else ``$GRADER_SCHEDULER``, else None (grade on this machine)."""
    return value or environment().get(SCHEDULER_ENV) or None


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
