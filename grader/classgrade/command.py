"""grader grade-class: grade a directory of submissions in parallel, resumably, here or on a Dask cluster."""

from __future__ import annotations

import argparse
import os
import shutil
from pathlib import Path

from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn, TimeRemainingColumn
from rich.table import Table

from grader.classgrade.run import discover_submissions
from grader.core.course import load_course
from grader.display import markup
from grader.engine.dispatch import ClassRoster, GradingOptions, grade_class
from grader.engine.events import RunListener, failed_message, lost_message, refused_message, retry_message
from grader.engine.record import GradeRecord
from grader.errors import GraderError
from grader.feedback import format_points
from grader.options import engine_options, scheduler_address
from grader.sandbox import add_sandbox_options, sandbox_mode

DEFAULT_OUT = "grading-results"


def register(sub, common) -> None:
    parser = sub.add_parser(
        "grade-class",
        parents=[common],
        help="grade a whole class in parallel (resumable; here or on a Dask cluster)",
        description="Grade every submission in SUBMISSIONS_DIR with the hidden tests: each subdirectory "
        "(shaped like exercises/, or holding the student's notebooks), .py file or notebook "
        "(<student>_<assignment>.ipynb) is one student's submission, named by it. "
        "N trusted processes grade in parallel (or the workers of a Dask cluster, --scheduler), "
        "each running the student code in a fresh sandboxed worker. Every result is written to "
        "OUT/results/<student>.json as soon as it is graded, so an interrupted run continues where "
        "it stopped; a submission is graded again only when it or the course changed. "
        "OUT/summary.csv has one row per student; `grader report OUT` turns the results into an "
        "HTML page.",
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument(
        "submissions_dir", metavar="SUBMISSIONS_DIR", help="one subdirectory, .py file or notebook per student"
    )
    engine_options(parser, jobs_help="grading processes in parallel on this machine (default: the number of CPUs)")
    parser.add_argument(
        "--out", metavar="DIR", default=DEFAULT_OUT, help=f"results directory (default: ./{DEFAULT_OUT})"
    )
    parser.add_argument("--force", action="store_true", help="grade every submission again, even if unchanged")
    parser.add_argument(
        "--student",
        action="append",
        metavar="ID",
        help="grade again this student's submission only, even if unchanged (repeatable; the name "
        "of its subdirectory or .py file without .py); the others' results are kept",
    )
    parser.add_argument(
        "--only",
        action="append",
        metavar="FUNCTION",
        help="grade only this function (repeatable); such results are kept apart from full ones",
    )
    add_sandbox_options(parser)
    parser.set_defaults(func=run)


class ClassProgress(RunListener):
    """What a class run shows: a bar (or a line per submission in logs), per-session work, failures."""

    def __init__(self, console: Console, what: str, jobs_text: str):
        self.console = console
        self.what = what
        self.jobs_text = jobs_text
        self.interactive = console.is_terminal
        self.progress = Progress(
            TextColumn("[bold]grading[/bold]"),
            BarColumn(),
            MofNCompleteColumn(),
            TextColumn("{task.fields[status]}"),
            TimeElapsedColumn(),
            TextColumn("eta"),
            TimeRemainingColumn(),
            console=console,
            disable=not self.interactive,
            transient=False,
        )
        self.task = None
        self.done = self.todo = self.failures = 0
        self.sessions: dict[str, int] = {}
        self.in_flight: set[str] = set()  # students being graded
        self.sandboxes: set[bool] = set()

    def status(self, last: str = "") -> str:
        flight = len(self.in_flight)
        workers = " ".join(f"{markup(s.rsplit('/', 1)[-1])}:{n}" for s, n in sorted(self.sessions.items()))
        failed = f" [red]{self.failures} failed[/red]" if self.failures else ""
        return f"{flight} in flight{failed} | done per worker {workers} | {markup(last)}"

    def plan(self, total: int, todo: int, current: int) -> None:
        self.todo = todo
        self.console.print(
            f"{total} submissions in {markup(self.what)}: {current} already "
            f"graded and unchanged, {todo} to grade {self.jobs_text}"
        )
        self.task = self.progress.add_task("grading", total=todo, status="")

    def started(self, session: str, sandbox: str, sandboxed: bool | None) -> None:
        # Once for the sandboxed sessions, and for every session without the sandbox.
        sandboxed = bool(sandboxed)
        if sandboxed and sandboxed in self.sandboxes:
            return
        self.sandboxes.add(sandboxed)
        where = "" if sandboxed else f" ({markup(session)})"
        text = f"sandbox{where}: {markup(sandbox)}"
        self.console.print(text if sandboxed else f"[bold red]{text}[/bold red]")

    def refused(self, session: str, reason: str) -> None:
        self.console.print(refused_message(session, reason))

    def began(self, student: str, session: str) -> None:
        self.in_flight.add(student)

    def graded(self, student: str, record: GradeRecord, session: str) -> None:
        self.done += 1
        self.sessions[session] = self.sessions.get(session, 0) + 1
        self.in_flight.discard(student)
        line = f"{record.student} {format_points(record.total)}/{format_points(record.max)}"
        self.progress.update(self.task, advance=1, status=self.status(line))
        if not self.interactive:
            self.console.print(
                f"[{self.done}/{self.todo}] graded {markup(line)} ({record.elapsed:.1f} s, {markup(session)})"
            )

    def retry(self, student: str, session: str, reason: str) -> None:
        self.in_flight.discard(student)
        self.console.print(retry_message(student, session, reason))

    def failed(self, student: str, reason: str, infrastructure: bool = False) -> None:
        self.failures += 1
        self.in_flight.discard(student)
        if self.task is not None:
            self.progress.update(self.task, advance=1, status=self.status())
        self.console.print(failed_message(student, reason))

    def lost(self, session: str) -> None:
        self.console.print(lost_message(session))


def stderr_console() -> Console:
    console = Console(stderr=True)
    if not console.is_terminal:  # logs and pipes: whole lines, no 80-column wrapping
        console = Console(stderr=True, soft_wrap=True, width=160)
    return console


def warn_without_sandbox(course, mode: str, console: Console) -> None:
    """Say so before anything starts, where people look (or refuse when the sandbox is required)."""
    if mode == "off":
        return
    from grader.sandbox import NO_SANDBOX_WARNING, probe
    from grader.sandbox.limits import Limits

    setup, reason = probe()
    if setup is None:
        if mode == "require" or Limits.from_course(course).require:
            raise GraderError(f"the sandbox is required but not available: {reason}")
        console.print(f"[bold red]{markup(NO_SANDBOX_WARNING.format(reason=reason), one_line=False)}[/bold red]")


def prepare_notebooks(course, students: dict, out: Path, skipped: dict[str, str]) -> tuple[dict, dict]:
    """Notebooks become modules to grade (in ``OUT/extracted/<student>/``, rewritten each run: the
    fingerprint of what is graded decides whether a stored grade is still current); the extractions,
    for their notes and cell spans."""
    from grader.notebooks.extract import MAX_NOTEBOOK_BYTES
    from grader.notebooks.submission import prepare
    from grader.untrusted import UntrustedFile, read_regular

    prepared, extractions = {}, {}
    for student, path in students.items():
        try:
            if isinstance(path, tuple):  # several notebook files of one student: one folder
                folder = out / "collected" / student
                if folder.exists():
                    shutil.rmtree(folder)
                folder.mkdir(parents=True)
                for nb in path:
                    (folder / nb.name).write_bytes(read_regular(nb, MAX_NOTEBOOK_BYTES))
                path = folder
            prepared[student], extraction = prepare(course, path, out / "extracted" / student)
        except (UntrustedFile, OSError, GraderError) as exc:
            skipped[student] = f"its notebooks could not be read ({exc})"
            continue
        if extraction is not None:
            extractions[student] = extraction
    return prepared, extractions


def keep_extractions(course, out: Path, extractions: dict) -> None:
    """Each notebook submission's record keeps what its extraction tells the student."""
    from grader.engine.store import ResultStore

    store = ResultStore(out)
    for student, extraction in extractions.items():
        record = store.load(student)
        if record is not None:
            assignments = ",".join(sorted({course.exercise(f).assignment for f in extraction.seen}))
            store.save(record.with_extraction(assignments, extraction))


def jobs_of(args) -> int:
    jobs = args.jobs or os.cpu_count() or 1
    if jobs < 1:
        raise GraderError("-j/--jobs must be at least 1")
    return jobs


def run(args: argparse.Namespace) -> int:
    console = stderr_console()
    course = load_course(args.course)
    wanted = tuple(dict.fromkeys(args.student)) if args.student else None
    # A student asked for is graded again; the rest of the class keeps its results.
    options = GradingOptions(
        jobs=jobs_of(args),
        sandbox=sandbox_mode(args),
        scheduler=scheduler_address(args.scheduler),
        only=tuple(args.only) if args.only else None,
        force=args.force or bool(wanted),
        students=wanted,
        out=Path(args.out).resolve(),
    )
    out = options.out
    if not options.scheduler:  # on a cluster, each worker says what sandbox it has
        warn_without_sandbox(course, options.sandbox, console)
    submissions = Path(args.submissions_dir)
    skipped: dict[str, str] = {}  # entries that cannot be graded: reported, they never stop the class
    students = discover_submissions(submissions, skipped, assignments=[a.id for a in course.assignments])
    students, extractions = prepare_notebooks(course, students, out, skipped)
    if not students:
        raise GraderError(
            f"{submissions} holds no submission that can be graded: "
            + "; ".join(f"{entry}: {reason}" for entry, reason in sorted(skipped.items())[:10])
        )
    others: list[str] = []
    if wanted:  # these only, graded again; the rest of the class keeps its results
        unknown = [s for s in wanted if s not in students]
        if unknown:
            reasons = [f"{s}: {skipped[s]}" if s in skipped else s for s in unknown]
            raise GraderError(
                f"no gradable submission in {submissions} for: {', '.join(reasons)} (students there: "
                f"{', '.join(sorted(students)[:20])}{' ...' if len(students) > 20 else ''})"
            )
        others = [s for s in students if s not in wanted]
        students = {s: students[s] for s in wanted}
        skipped = {}
    jobs = options.jobs
    where = (
        f"on the Dask cluster at {options.scheduler}"
        if options.scheduler
        else f"with {jobs} process{'es' if jobs > 1 else ''}"
    )
    progress = ClassProgress(console, args.submissions_dir, where)
    with progress.progress:
        result = grade_class(
            course,
            ClassRoster(students, submissions.resolve(), skipped, others, partial=bool(wanted)),
            options,
            listener=progress,
        )
    keep_extractions(course, out, extractions)
    table = Table(title=f"{course.title}: {len(result.students)} submissions", show_header=False)
    table.add_row("graded now", str(len(result.graded)))
    table.add_row("already graded, unchanged", str(len(result.up_to_date)))
    if result.failed:
        table.add_row("[red]could not be graded[/red]", markup(", ".join(sorted(result.failed))))
    table.add_row("graded by", markup(result.where or "-"))
    table.add_row("wall time", f"{result.wall_time:.1f} s")
    if result.graded:
        table.add_row("per submission", f"{result.wall_time / len(result.graded):.2f} s")
    table.add_row("results", markup(out / "results"))
    table.add_row("summary", markup(out / "summary.csv"))
    console.print(table)
    if result.interrupted:
        console.print(
            f"[yellow]interrupted: {len(result.graded)} graded in this run are saved; run the same "
            "command again to grade the rest[/yellow]"
        )
        return 130
    return 1 if result.failed else 0
