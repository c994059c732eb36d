"""The ``grader`` command: one sub-command per verb, each in its own package."""

from __future__ import annotations

import argparse
import importlib
import sys

from grader import __version__
from grader.errors import GraderError

# Each module defines register(subparsers, common) and sets a `func` on its parser.
COMMANDS = [
    "grader.stubs.command",
    "grader.grade.command",
    "grader.check.command",
    "grader.notebooks.command",
    "grader.demo.command",
    "grader.build.command",
    "grader.build.leak_command",
    "grader.autograde.command",
    "grader.classgrade.command",
    "grader.engine.credentials",
    "grader.report.command",
    "grader.studentfeedback.command",
    "grader.export.command",
    "grader.gradescope.command",
]

DESCRIPTION = """\
Auto-grader for "Policy gradients: from REINFORCE to PPO".

Students:     grader check                 run the visible tests on exercises/ (or a notebook)
              grader modules NOTEBOOK...   write your notebooks' functions into .py modules (labs)
Instructors:  grader grade SUBMISSION      grade one submission with the hidden tests
              grader grade-class DIR -j N  grade a class in parallel, sandboxed, resumable
                (--scheduler ADDRESS: on a Dask cluster)
              grader report RESULTS_DIR    an HTML report of a graded class
              grader feedback RESULTS_DIR  each student's feedback page (HTML, Markdown)
Course devs:  grader stubs [--check]       regenerate exercises/ from solutions/
Try it:       grader demo                  grade the embedded sample class
nbgrader:     grader build / autograde     nbgrader course: release, then grade submitted/
              grader roster / export       the class's names into the gradebook, grades out to an LMS
Gradescope:   grader gradescope ASSIGNMENT the autograder.zip Gradescope runs on each submission
"""


def common_options() -> argparse.ArgumentParser:
    common = argparse.ArgumentParser(add_help=False)
    common.add_argument(
        "--course",
        metavar="DIR",
        default=None,
        help="course directory holding course.yaml (default: the nearest one above "
        "the current directory, or $GRADER_COURSE)",
    )
    return common


def build_parser() -> argparse.ArgumentParser:
    common = common_options()
    parser = argparse.ArgumentParser(
        prog="grader",
        description=DESCRIPTION,
        formatter_class=argparse.RawDescriptionHelpFormatter,
        epilog="Run 'grader COMMAND --help' for the options of a command.",
    )
    parser.add_argument("--version", action="version", version=f"grader {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", required=True)
    for name in COMMANDS:
        importlib.import_module(name).register(sub, common)
    return parser


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        return int(args.func(args) or 0)
    except GraderError as exc:
        print(f"grader: error: {exc}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("grader: interrupted", file=sys.stderr)
        return 130


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
