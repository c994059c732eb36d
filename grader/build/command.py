"""grader build: write the nbgrader course directory and release it with nbgrader."""

from __future__ import annotations

import argparse

from rich.console import Console

from grader.core.course import load_course
from grader.display import markup
from grader.options import course_dir_option, db_option, resolve_course_dir


def register(sub, common) -> None:
    parser = sub.add_parser(
        "build",
        parents=[common],
        help="write the nbgrader course directory and release every assignment",
        description="Generate an nbgrader course directory from course.yaml, solutions/ and the tests: "
        "nbgrader_config.py, source/<assignment>/<assignment>.ipynb (solutions marked, hidden tests in "
        "hidden regions, points from course.yaml), then run `nbgrader generate_assignment` to write "
        "release/ and check it for leaks. Assignments whose pieces are missing are skipped with the "
        "reason. Exit status 1 when the leak check finds something.",
    )
    course_dir_option(parser)
    db_option(parser, written=True)
    parser.add_argument(
        "--assignment", action="append", metavar="ID", help="build only this assignment (repeatable; default: all)"
    )
    parser.add_argument("--no-leak-check", action="store_true", help="skip the leak check (not for releases)")
    parser.add_argument(
        "--new-gradebook",
        action="store_true",
        help="with --db: use that database even though the grades of the course's present gradebook "
        "would stay behind (by default this is refused; `grader gradebook copy` moves them)",
    )
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from grader.build.kit import KIT_DIR
    from grader.build.pipeline import build_course  # nbformat/nbgrader: imported only when building

    console = Console()
    course = load_course(args.course, check_files=False)
    course_dir = resolve_course_dir(course, args.course_dir)
    state = build_course(
        course,
        course_dir,
        only=args.assignment,
        leak_check=not args.no_leak_check,
        db_url=args.db,
        console=console,
        new_gradebook=args.new_gradebook,
    )
    for b in state.built:
        extra = f" + {len(b.student_modules) + len(b.provided_files)} module file(s)" if b.lab else ""
        console.print(f"[green]built[/green] {b.id}: source/{b.id}/{b.notebook} -> release/{b.id}/{b.notebook}{extra}")
    kits = sorted(p.name for p in (course_dir / KIT_DIR).glob("*.zip")) if state.built else []
    if kits:
        console.print(f"student kits: {markup(course_dir / KIT_DIR)}/ ({', '.join(kits)}; each has a README.txt)")
    for aid, reason in state.skipped.items():
        console.print(f"[yellow]skipped[/yellow] {aid}: {markup(reason)}")
    for warning in state.warnings:
        console.print(f"[yellow]warning:[/yellow] {markup(warning)}")
    console.print(f"course directory: {course_dir}")
    console.print(f"gradebook: {markup(state.gradebook)}", highlight=False)
    if state.leaks:
        for leak in state.leaks:
            console.print(f"[red]leak[/red] {markup(leak, one_line=False)}", highlight=False, soft_wrap=True)
        console.print(f"[red]the leak check found {len(state.leaks)} problem(s): do not hand out release/[/red]")
        return 1
    if not args.no_leak_check:
        console.print("leak check: release/ and exercises/ hold no solution, hidden test or hidden value")
    return 0
