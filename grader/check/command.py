"""grader check: run the visible tests on a student's exercises/."""

from __future__ import annotations

import argparse
from pathlib import Path

from rich.console import Console

from grader.course import load_course
from grader.display import visible
from grader.engine.driver import grade_here
from grader.engine.parcel import Parcel, check_submission_path

ALL_PASSED = "visible tests passed; hidden tests will also be run"


def register(sub, common) -> None:
    parser = sub.add_parser(
        "check", parents=[common], help="students: run the visible tests on your exercises/",
        description="Run the visible tests against your work (default: the course's exercises/ "
                    "directory). Passing them is necessary, not sufficient: hidden tests are run when "
                    "your work is graded. Exit status 1 when a visible test fails.")
    parser.add_argument("path", nargs="?", default=None, metavar="PATH",
                        help="directory shaped like exercises/ or one .py file (default: exercises/)")
    parser.add_argument("--only", action="append", metavar="FUNCTION", help="check only this function")
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    course = load_course(args.course)
    path = check_submission_path(Path(args.path) if args.path else course.exercises_dir)
    console = Console()
    with console.status("running the visible tests ..."):
        parcel = Parcel.read("you", path, label=str(args.path or "exercises"), only=args.only)
        result = grade_here(course, [parcel], suite="visible", only=args.only)["you"].result
    failing = 0
    for name, f in result.functions.items():
        if not f.tests:
            console.print(f"[dim]-[/dim] {name}: no visible tests")
            continue
        passed = sum(t.passed for t in f.tests)
        if passed == len(f.tests):
            console.print(f"[green]✓[/green] {name}: {passed}/{len(f.tests)} visible tests passed")
            continue
        failing += 1
        console.print(f"[red]✗[/red] {name}: {passed}/{len(f.tests)} visible tests passed")
        for message in ([f.error] if f.error else []) + [m for m in f.messages if m != f.error]:
            # soft_wrap: a message stays one line (terminals wrap it; grep still finds it).
            console.print(f"    - {visible(message)}", markup=False, highlight=False, soft_wrap=True)
    if failing:
        console.print(f"\n{failing} function(s) need more work.")
        return 1
    console.print(f"\n{ALL_PASSED}")
    return 0
