"""grader gradescope: write the autograder.zip Gradescope runs for one assignment."""

from __future__ import annotations

import argparse

from rich.console import Console

from grader.core.course import load_course


def register(sub, common) -> None:
    parser = sub.add_parser(
        "gradescope",
        parents=[common],
        help="write the Gradescope autograder package (autograder.zip) of an assignment",
        description="Write the autograder package Gradescope expects for ASSIGNMENT: setup.sh (installs bubblewrap "
        "and the Python packages, pinned to the versions installed here), run_autograder, this grader, "
        "and the assignment's hidden tests with the reference solutions they compare with (Gradescope's "
        "autograder image is not visible to students). Each submission may be the .py modules of "
        "exercises/ or the assignment's notebook; results.json gets one test per exercise with the "
        "misconception messages, visible to students as course.yaml's gradescope.visibility says "
        "(default: after_published).",
    )
    parser.add_argument("assignment", metavar="ASSIGNMENT", help="assignment id (course.yaml)")
    parser.add_argument(
        "-o",
        "--output",
        metavar="ZIP",
        default="autograder.zip",
        help="where to write the package (a .zip file, or a folder to put autograder.zip in; "
        "default: autograder.zip in the current directory)",
    )
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from grader.gradescope.package import write_package  # packaging and yaml: only when packaging

    course = load_course(args.course)
    out = write_package(course, args.assignment, args.output)
    console = Console(highlight=False)
    console.print(
        f"wrote {out}: upload it as the autograder of {args.assignment} on Gradescope "
        "(Configure Autograder > Zip file upload)"
    )
    return 0
