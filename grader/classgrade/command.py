"""grader grade-class: grade a directory of submissions in parallel, resumably."""

from __future__ import annotations

import argparse
import os
from pathlib import Path

from rich.console import Console
from rich.markup import escape
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn, TimeRemainingColumn
from rich.table import Table

from grader.classgrade.run import grade_class
from grader.course import load_course
from grader.grade.render import format_points
from grader.sandbox import add_sandbox_options, sandbox_mode

DEFAULT_OUT = "grading-results"


def register(sub, common) -> None:
    parser = sub.add_parser(
        "grade-class", parents=[common], help="grade a whole class in parallel (resumable)",
        description="Grade every submission in SUBMISSIONS_DIR with the hidden tests: each subdirectory "
                    "(shaped like exercises/) or .py file is one student's submission, named by it. "
                    "N trusted processes grade in parallel, each running the student code in a fresh "
                    "sandboxed worker. Every result is written to OUT/results/<student>.json as soon as "
                    "it is graded, so an interrupted run continues where it stopped; a submission is "
                    "graded again only when it or the course changed. OUT/summary.csv has one row per "
                    "student; `grader report OUT` turns the results into an HTML page.",
        formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("submissions_dir", metavar="SUBMISSIONS_DIR", help="one subdirectory or .py file per student")
    parser.add_argument("-j", "--jobs", type=int, default=None, metavar="N",
                        help="grading processes in parallel (default: the number of CPUs)")
    parser.add_argument("--out", metavar="DIR", default=DEFAULT_OUT,
                        help=f"results directory (default: ./{DEFAULT_OUT})")
    parser.add_argument("--force", action="store_true", help="grade every submission again, even if unchanged")
    parser.add_argument("--only", action="append", metavar="FUNCTION",
                        help="grade only this function (repeatable); such results are kept apart from full ones")
    add_sandbox_options(parser)
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    console = Console(stderr=True)
    if not console.is_terminal:  # logs and pipes: whole lines, no 80-column wrapping
        console = Console(stderr=True, soft_wrap=True, width=160)
    course = load_course(args.course)
    jobs = args.jobs or os.cpu_count() or 1
    if jobs < 1:
        from grader.errors import GraderError

        raise GraderError("-j/--jobs must be at least 1")
    out = Path(args.out).resolve()
    interactive = console.is_terminal
    progress = Progress(TextColumn("[bold]grading[/bold]"), BarColumn(), MofNCompleteColumn(),
                        TextColumn("{task.fields[last]}"), TimeElapsedColumn(), TextColumn("eta"),
                        TimeRemainingColumn(), console=console, disable=not interactive, transient=False)
    state = {"task": None, "done": 0, "todo": 0}

    def on_event(kind: str, data: dict) -> None:
        if kind == "plan":
            state["todo"] = data["todo"]
            console.print(f"{data['total']} submissions in {args.submissions_dir}: {data['current']} already graded "
                          f"and unchanged, {data['todo']} to grade with {min(jobs, max(data['todo'], 1))} "
                          f"process{'es' if jobs > 1 else ''}")
            state["task"] = progress.add_task("grading", total=data["todo"], last="")
        elif kind == "started":
            if data.get("sandboxed"):
                console.print(f"sandbox: {data['sandbox']}")
            else:
                console.print(f"[bold red]sandbox: {data['sandbox']}[/bold red]")
        elif kind == "graded":
            state["done"] += 1
            result = data["result"]
            line = f"{data['student']} {format_points(result['total'])}/{format_points(result['max'])}"
            progress.update(state["task"], advance=1, last=line)
            if not interactive:
                console.print(f"[{state['done']}/{state['todo']}] graded {line} ({data['elapsed']:.1f} s)")
        elif kind == "failed":
            console.print(f"[red]could not grade {escape(data['student'])}: {escape(data['reason'])}[/red]")

    mode = sandbox_mode(args)
    if mode != "off":
        # Warn before anything starts, in the coordinator, where people look.
        from grader.sandbox import NO_SANDBOX_WARNING, probe
        from grader.sandbox.limits import Limits

        setup, reason = probe()
        if setup is None:
            if mode == "require" or Limits.from_course(course).require:
                from grader.errors import GraderError

                raise GraderError(f"the sandbox is required but not available: {reason}")
            console.print(f"[bold red]{NO_SANDBOX_WARNING.format(reason=reason)}[/bold red]")
    with progress:
        result = grade_class(course, Path(args.submissions_dir), out, jobs=jobs, mode=mode, force=args.force,
                             only=args.only, on_event=on_event)
    table = Table(title=f"{course.title}: {len(result.students)} submissions", show_header=False)
    table.add_row("graded now", str(len(result.graded)))
    table.add_row("already graded, unchanged", str(len(result.up_to_date)))
    if result.failed:
        table.add_row("[red]could not be graded[/red]", escape(", ".join(sorted(result.failed))))
    table.add_row("wall time", f"{result.wall_time:.1f} s")
    if result.graded:
        table.add_row("per submission", f"{result.wall_time / len(result.graded):.2f} s")
    table.add_row("results", str(out / "results"))
    table.add_row("summary", str(out / "summary.csv"))
    console.print(table)
    if result.interrupted:
        console.print(f"[yellow]interrupted: {len(result.graded)} graded in this run are saved; run the same "
                      "command again to grade the rest[/yellow]")
        return 130
    return 1 if result.failed else 0
