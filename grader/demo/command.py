"""grader demo: build the course, grade the embedded sample class, report on it."""

from __future__ import annotations

import argparse
import importlib.util
import os
from pathlib import Path
from typing import TYPE_CHECKING

from rich.console import Console
from rich.table import Table

from grader.core.course import load_course
from grader.core.stubs import stale_files
from grader.demo import assemble_sample_class
from grader.display import markup, text
from grader.engine.events import RunListener, failed_message
from grader.errors import GraderError
from grader.feedback import format_points, grade_table
from grader.options import settings_options

if TYPE_CHECKING:
    from grader.engine.record import GradeRecord


def register(sub, common) -> None:
    parser = sub.add_parser(
        "demo",
        parents=[common],
        help="build the course and grade the embedded sample class (what `make demo` runs)",
        description="Check that exercises/ matches solutions/, build the nbgrader course (with its leak check), "
        "assemble the sample class (alice: the reference solutions; bob: the untouched stubs; carol: "
        "partly wrong), grade it like a real class (sandboxed, in parallel, labs included), print the "
        "grades and write the instructor's HTML report. Everything goes under --out.",
    )
    parser.add_argument(
        "--out",
        metavar="DIR",
        default="course-build/demo",
        help="where to write the nbgrader course, the class and its results "
        "(default: course-build/demo in the course repository)",
    )
    parser.add_argument(
        "-j",
        "--jobs",
        type=int,
        default=min(2, os.cpu_count() or 1),
        metavar="N",
        help="grading processes in parallel (default: 2, or 1 on a single core)",
    )
    parser.add_argument("--skip-build", action="store_true", help="do not build the nbgrader course")
    settings_options(parser)
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from grader.classgrade.run import discover_submissions
    from grader.engine.dispatch import ClassRoster, GradingOptions, grade_class
    from grader.engine.store import ResultStore
    from grader.report.build import write_report

    console = Console()
    course = load_course(args.course)
    out = Path(args.out)
    if not out.is_absolute():
        out = course.root / out

    console.rule("1. the course")
    stale = stale_files(course)
    if stale:
        console.print(
            "[yellow]warning:[/yellow] exercises/ is out of date with solutions/ (run `grader stubs`): "
            + "; ".join(stale[:3])
        )
    else:
        console.print(
            f"{course.title}, module {course.module_number}: {len(course.assignments)} assignments, "
            f"{len(course.exercises)} exercises; exercises/ matches solutions/"
        )
    if args.skip_build:
        console.print("nbgrader course: skipped (--skip-build)")
    elif importlib.util.find_spec("nbgrader") is None:
        console.print("nbgrader course: skipped; install the instructor tools with pip install -e '.[instructor]'")
    else:
        from grader.build.pipeline import build_course

        state = build_course(course, out / "nbgrader", console=console)
        built = ", ".join(b.id for b in state.built)
        console.print(f"nbgrader course in {out / 'nbgrader'}: released {built or 'nothing'}")
        for assignment, reason in state.skipped.items():
            console.print(f"  skipped {assignment}: {reason}")
        if state.leaks:
            console.print(f"[red]leak check: {len(state.leaks)} leak(s) in the release[/red]")
            return 1
        console.print("leak check: release/ and exercises/ carry no solution, hidden test or hidden value")

    console.rule("2. the sample class")
    submissions = out / "submissions"
    students = assemble_sample_class(course, submissions)
    console.print(f"{', '.join(students)} under {submissions}")

    console.rule("3. grading (hidden tests, sandboxed workers, labs included)")
    results_dir = out / "results"

    with console.status("grading the sample class (the labs train policies: about a minute) ..."):
        options = GradingOptions.from_command_line(args, jobs=max(1, args.jobs), force=True, out=results_dir)
        run_info = grade_class(
            course,
            ClassRoster(discover_submissions(submissions), root=submissions),
            options,
            listener=_Grading(console),
        )
    store = ResultStore(results_dir)
    records = {student: store.load(student) for student in students}
    missing = [student for student, record in records.items() if record is None]
    if missing:
        raise GraderError(f"no grade for {', '.join(missing)}: {run_info.failed}")

    summary = Table(title=f"{course.title}, module {course.module_number}: the sample class")
    summary.add_column("student")
    for a in course.assignments:
        summary.add_column(a.id, justify="right")
    summary.add_column("total", justify="right")
    for student, record in records.items():
        parts = [
            f"{format_points(record.assignments[a.id]['score'])}/{format_points(record.assignments[a.id]['max'])}"
            for a in course.assignments
        ]
        summary.add_row(
            text(student, one_line=True), *parts, f"{format_points(record.total)}/{format_points(record.max)}"
        )
    console.print(summary)
    carol = records["carol"].result
    carol.functions = {n: f for n, f in carol.functions.items() if f.score < f.max}
    console.print(
        grade_table(carol, title="carol: what to look at (first message of each)", max_messages=1, show_total=False)
    )

    report = write_report(results_dir)
    console.print(f"graded in {run_info.wall_time:.0f} s ({run_info.sandbox or 'no sandbox'})")
    console.print(f"results: {results_dir}  |  instructor report: {report}")
    return 0


class _Grading(RunListener):
    """A line per grading process started and per submission graded or not."""

    def __init__(self, console: Console):
        self.console = console

    def started(self, session: str, sandbox: str, sandboxed: bool | None) -> None:
        self.console.print(f"grading process started ({markup(sandbox)})")

    def graded(self, student: str, record: GradeRecord, session: str) -> None:
        self.console.print(f"graded {markup(record.student)}: {record.total:.4g}/{record.max:g}")

    def failed(self, student: str, reason: str, infrastructure: bool = False) -> None:
        self.console.print(failed_message(student, reason))
