"""grader demo: assemble the embedded sample class and grade it."""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from rich.console import Console
from rich.table import Table

from grader.course import load_course
from grader.demo import assemble_sample_class
from grader.grade.render import grade_table
from grader.grade.runner import run_tests
from grader.stubs import stale_files


def register(sub, common) -> None:
    parser = sub.add_parser(
        "demo", parents=[common], help="grade the embedded sample class (what `make demo` runs)",
        description="Assemble the sample class (alice: the reference solutions; bob: the untouched "
                    "stubs; carol: partly wrong) under --out, grade it with the hidden tests and "
                    "print the grades. Results are written as JSON next to the submissions.")
    parser.add_argument("--out", metavar="DIR", default="course-build/demo",
                        help="where to write the sample class and its results (default: course-build/demo)")
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    console = Console()
    course = load_course(args.course)
    out = Path(args.out)
    if not out.is_absolute():
        out = course.root / out

    stale = stale_files(course)
    if stale:
        console.print("[yellow]warning:[/yellow] exercises/ is out of date with solutions/ "
                      "(run `grader stubs`): " + "; ".join(stale[:3]))

    console.rule("1. the sample class")
    students = assemble_sample_class(course, out / "submissions")
    console.print(f"assembled {', '.join(students)} under {out / 'submissions'}")

    console.rule("2. grading with the hidden tests")
    results_dir = out / "results"
    results_dir.mkdir(parents=True, exist_ok=True)

    with console.status("grading ...") as status:
        def done(sid, result):
            status.update(f"graded {sid}")
            (results_dir / f"{sid}.json").write_text(json.dumps(result.to_json(), indent=1))

        results = run_tests(course, students, on_result=done)

    summary = Table(title=f"{course.title}, module {course.module_number}: sample class")
    summary.add_column("student")
    for a in course.assignments:
        summary.add_column(a.id, justify="right")
    summary.add_column("total", justify="right")
    for student, result in results.items():
        row = [student]
        for a in course.assignments:
            got = sum(f.score for f in result.functions.values() if f.assignment == a.id)
            most = sum(f.max for f in result.functions.values() if f.assignment == a.id)
            row.append(f"{got:g}/{most:g}")
        row.append(f"{result.total:g}/{result.max:g}")
        summary.add_row(*row)
    console.print(summary)
    console.print(grade_table(course, results["carol"], title="carol, in detail"))
    console.print(f"JSON results: {results_dir}")
    return 0
