"""The ``grader`` command: one sub-command per verb, each in its own package."""

from __future__ import annotations

import argparse
import importlib
import sys

from grader import __version__, edition
from grader.errors import GraderError
from grader.options import default_course

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
    "grader.similarity.command",
]
# What a student kit's checker offers (grader.edition.STUDENT): these modules, and `help`.
STUDENT_COMMANDS = ["grader.check.command", "grader.notebooks.command"]
# The names the other modules register: asked for in a kit, they get a sentence instead of argparse's
# "invalid choice" (tests/build/test_student_kit.py checks that this list is the full parser's other commands).
INSTRUCTOR_COMMANDS = (
    "stubs",
    "grade",
    "demo",
    "build",
    "leak-check",
    "autograde",
    "grade-class",
    "cluster-credentials",
    "report",
    "feedback",
    "roster",
    "export",
    "gradebook",
    "gradescope",
    "similarity",
)

DESCRIPTION = """\
Auto-grader for "Policy gradients: from REINFORCE to PPO".

Students:     grader check                 run the visible tests on exercises/ (or a notebook)
              grader modules NOTEBOOK...   write your notebooks' functions into .py modules (labs)
Instructors:  grader grade SUBMISSION      grade one submission with the hidden tests
              grader grade-class DIR -j N  grade a class in parallel, sandboxed, resumable
                (--scheduler ADDRESS: on a Dask cluster)
              grader report RESULTS_DIR    an HTML report of a graded class
              grader feedback RESULTS_DIR  each student's feedback page (HTML, Markdown)
              grader similarity DIR        pairs with similar code or shared rare wrong replies
Course devs:  grader stubs [--check]       regenerate exercises/ from solutions/
Try it:       grader demo                  grade the embedded sample class
nbgrader:     grader build / autograde     nbgrader course: release, then grade submitted/
              grader roster / export       the class's names into the gradebook, grades out to an LMS
Gradescope:   grader gradescope ASSIGNMENT the autograder.zip Gradescope runs on each submission
"""

STUDENT_DESCRIPTION = """\
The checker of your student kit for "Policy gradients: from REINFORCE to PPO".

  grader check [PATH]           run the visible tests on your work (default: exercises/): .py
                                modules, a notebook or a folder of both
  grader check PATH --only NAME one exercise
  grader modules NOTEBOOK...    write your notebooks' functions into .py modules (the lab runs them)
  grader help [COMMAND]         this text, or a command's options

Passing the visible tests is necessary, not sufficient: the hidden tests run when your work is graded.
"""


def common_options() -> argparse.ArgumentParser:
    common = argparse.ArgumentParser(add_help=False)
    common.add_argument(
        "--course",
        metavar="DIR",
        default=default_course(),
        help="course directory holding course.yaml (default: the nearest one above "
        "the current directory, or $GRADER_COURSE)",
    )
    return common


def build_parser(student: bool | None = None) -> argparse.ArgumentParser:
    """The ``grader`` command; ``student`` (default: :data:`grader.edition.STUDENT`) offers a student kit's
    commands only."""
    student = edition.STUDENT if student is None else student
    common = common_options()
    parser = argparse.ArgumentParser(
        prog="grader",
        description=STUDENT_DESCRIPTION if student else DESCRIPTION,
        formatter_class=argparse.RawDescriptionHelpFormatter,
        epilog="Run 'grader help COMMAND' (or 'grader COMMAND --help') for the options of a command.",
    )
    parser.add_argument("--version", action="version", version=f"grader {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", required=True)
    for name in STUDENT_COMMANDS if student else COMMANDS:
        importlib.import_module(name).register(sub, common)
    helper = sub.add_parser("help", help="this help, or the options of one command", add_help=False)
    helper.add_argument("topic", nargs="?", metavar="COMMAND")
    helper.set_defaults(func=lambda args: _help(parser, sub, args.topic))
    parser.commands = list(sub.choices)  # what this grader offers, for the messages below
    return parser


def _help(parser: argparse.ArgumentParser, sub, topic: str | None) -> int:
    if topic is None:
        parser.print_help()
        return 0
    if topic not in sub.choices:
        raise GraderError(_unknown(topic, list(sub.choices)))
    sub.choices[topic].print_help()
    return 0


def _unknown(name: str, commands: list[str]) -> str:
    offered = ", ".join(commands)
    if edition.STUDENT and name in INSTRUCTOR_COMMANDS:
        return (
            f"'{name}' is an instructor's command; this is the checker of a student kit, which offers {offered}. "
            "Instructors run it with the course's own grader, installed from the course repository "
            "(pip install -e '.[instructor]')."
        )
    return f"no command '{name}' (the commands: {offered})"


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else list(argv)
    parser = build_parser()
    if edition.STUDENT and argv and argv[0] in INSTRUCTOR_COMMANDS:
        # Said before argparse reads the rest: its options are not this checker's to judge.
        print(f"grader: error: {_unknown(argv[0], parser.commands)}", file=sys.stderr)
        return 2
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
