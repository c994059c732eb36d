"""grader leak-check: fail when what students receive carries a solution or a hidden test."""

from __future__ import annotations

import argparse

from rich.console import Console

from grader.core.course import load_course
from grader.display import markup
from grader.options import course_dir_option, resolve_course_dir


def register(sub, common) -> None:
    parser = sub.add_parser(
        "leak-check",
        parents=[common],
        help="check release/, feedback/ and exercises/ for solutions and hidden tests",
        description="Look through every file of <course-dir>/release/ and the student files of exercises/ for "
        "lines of the solution regions, code of the hidden tests and expected values that only "
        "hidden tests use (worked_examples.yaml), and through <course-dir>/feedback/ (after "
        "`nbgrader generate_feedback`) for the same, except what the student handed in "
        "(submitted/, never through a link: a student's own code is theirs to see). Exit status 1 "
        "names each leak; 0 means none.",
    )
    course_dir_option(parser)
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from grader.build.leaks import check_leaks  # heavy (nbformat): only when checking

    console = Console(highlight=False)
    course = load_course(args.course, check_files=False)
    course_dir = resolve_course_dir(course, args.course_dir)
    if not (course_dir / "release").is_dir():
        console.print(
            f"[yellow]note:[/yellow] {course_dir}/release does not exist; checking exercises/ only "
            "(run `grader build` first)"
        )
    leaks = check_leaks(course, course_dir)
    for leak in leaks:
        console.print(f"[red]leak[/red] {markup(leak, one_line=False)}", soft_wrap=True)
    if leaks:
        console.print(f"[red]{len(leaks)} leak(s)[/red]")
        return 1
    checked = "release/, feedback/ and exercises/" if (course_dir / "feedback").is_dir() else "release/ and exercises/"
    console.print(
        f"no leaks in {checked}: no solution line, hidden test or hidden expected value in what students receive"
    )
    return 0
