"""grader grade-class: grade a directory of submissions in parallel, resumably, here or on a Dask cluster."""

from __future__ import annotations

import argparse
import os
from dataclasses import replace
from pathlib import Path

from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn, TimeRemainingColumn
from rich.table import Table

from grader.classgrade.run import copy_notebooks
from grader.core.course import load_course
from grader.display import markup
from grader.engine.dispatch import ClassRoster, GradingOptions, grade_class
from grader.engine.events import RunListener, failed_message, lost_message, refused_message, retry_message
from grader.engine.record import GradeRecord
from grader.engine.store import ResultStore
from grader.errors import GraderError
from grader.feedback import format_points
from grader.notebooks.submission import prepare
from grader.options import engine_options, lms_options, scheduler_address
from grader.sandbox import NO_SANDBOX_WARNING, add_sandbox_options, probe, sandbox_mode
from grader.sandbox.limits import Limits
from grader.untrusted import UntrustedFile

DEFAULT_OUT = "grading-results"
DESCRIPTION = (
    "Grade every submission in SUBMISSIONS (a folder, or an LMS download: --zip) with the "
    "hidden tests. An LMS's download (Canvas, Moodle, Blackboard, Brightspace; zipped or unpacked) is "
    "read by its shape: each student by the LMS's own id (through --roster when given), the time the "
    "LMS wrote, the latest submission. Otherwise each subdirectory (shaped like exercises/, or holding "
    "the student's notebooks), .py file or notebook (<student>_<assignment>.ipynb) is one student's "
    "submission, named by it. With --assignment, only that assignment's exercises are graded and "
    "counted (totals, feedback and the report out of its points). N trusted processes grade in "
    "parallel (or the workers of a Dask cluster, --scheduler), each running the student code in a "
    "fresh sandboxed worker. Every result is written to OUT/results/<student>.json as soon as it is "
    "graded, so an interrupted run continues where it stopped; a submission is graded again only "
    "when it or the course changed. OUT/summary.csv has one row per student, with the late penalty "
    "(calendar.late_policy, each student's extension) and the final score; `grader report OUT` "
    "turns the results into an HTML page. Exit status: 0 every submission graded and every entry "
    "collected; 1 some could not be graded or some entry was left out (each named, with why); 2 the "
    "grader could not run."
)


def register(sub, common) -> None:
    parser = sub.add_parser(
        "grade-class",
        parents=[common],
        help="grade a whole class in parallel (resumable; here or on a Dask cluster)",
        description=DESCRIPTION,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument(
        "submissions_dir",
        metavar="SUBMISSIONS",
        nargs="?",
        default=None,
        help="a folder: one subdirectory, .py file or notebook per student, or an LMS download unpacked",
    )
    lms_options(parser, zip_help="grade the LMS download in this .zip file (instead of SUBMISSIONS)")
    parser.add_argument(
        "--assignment",
        action="append",
        metavar="ID",
        help="grade this assignment's exercises only, out of its points (repeatable; course.yaml's ids)",
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
        "of its subdirectory or .py file without .py, or the id collection gave it); the others' results are kept",
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


def warn_without_sandbox(course, options: GradingOptions, console: Console) -> None:
    """Say so before anything starts, where people look (or refuse when the sandbox is required)."""
    if options.sandbox == "off":
        return
    setup, reason = probe(options.bubblewrap)
    if setup is None:
        if options.sandbox == "require" or Limits.from_course(course).require:
            raise GraderError(f"the sandbox is required but not available: {reason}")
        console.print(f"[bold red]{markup(NO_SANDBOX_WARNING.format(reason=reason), one_line=False)}[/bold red]")


def prepare_notebooks(course, students: dict, out: Path, skipped: dict[str, str], only=None) -> tuple[dict, dict]:
    """Notebooks become modules to grade (in ``OUT/extracted/<student>/``, rewritten each run: the
    fingerprint of what is graded decides whether a stored grade is still current); the extractions,
    for their notes and cell spans. ``only``: the functions graded (all when None)."""
    prepared, extractions = {}, {}
    for student, path in students.items():
        try:
            if isinstance(path, tuple):  # several notebook files of one student: one folder
                path = copy_notebooks(path, out / "notebooks" / student)
            prepared[student], extraction = prepare(course, path, out / "extracted" / student, only)
        except (UntrustedFile, OSError, GraderError) as exc:
            skipped[student] = f"its notebooks could not be read ({exc})"
            continue
        if extraction is not None:
            extractions[student] = extraction
    return prepared, extractions


def keep_extractions(course, out: Path, extractions: dict) -> None:
    """Each notebook submission's record keeps what its extraction tells the student."""
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


def scope_of(args, course) -> tuple[str, ...] | None:
    """The functions graded: ``--assignment``'s exercises (and of them ``--only``'s), or ``--only``'s."""
    if not args.assignment:
        return tuple(args.only) if args.only else None
    functions = [e.function for a in dict.fromkeys(args.assignment) for e in course.assignment(a).exercises]
    if args.only:
        outside = [f for f in args.only if f not in functions]
        if outside:
            raise GraderError(f"--only {', '.join(outside)}: not an exercise of {', '.join(args.assignment)}")
        functions = [f for f in functions if f in args.only]
    return tuple(functions)


def source_of(args) -> Path:
    if args.zip and args.submissions_dir:
        raise GraderError("give SUBMISSIONS or --zip FILE, not both")
    if not (args.zip or args.submissions_dir):
        raise GraderError("give the class: a folder of submissions, or --zip FILE (an LMS download)")
    source = Path(args.zip or args.submissions_dir)
    if args.zip and not Path(args.zip).is_file():
        raise GraderError(f"LMS download not found: {args.zip}")
    return source


def print_class(klass, source: Path, console: Console):
    """What the collection part (grader.lms) read of the class, and left out, said before grading."""
    if klass.lms != "generic":
        how = f"a {klass.lms} download" + (" (recognised from its names)" if klass.detected else "")
        console.print(
            f"{markup(source.name)}: {how}, {len(klass.students)} student(s), written to {markup(klass.root)}"
        )
        people = [f"{s} = {p['name']}" for s, p in sorted(klass.people.items())]
        console.print(f"students (id = name as the LMS writes it): {markup('; '.join(people))}")
    for note in klass.notes:
        console.print(f"[cyan]note:[/cyan] {markup(note)}")
    for line in klass.by_rule:
        console.print(f"left out: {markup(line)}")
    for line in klass.left_out:
        console.print(f"[yellow]not collected:[/yellow] {markup(line)}")
    return klass


def summary_table(console: Console, course, result, out: Path) -> None:
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


def options_of(args, course) -> GradingOptions:
    wanted = tuple(dict.fromkeys(args.student)) if args.student else None
    # A student asked for is graded again; the rest of the class keeps its results.
    return GradingOptions.from_command_line(
        args,
        jobs=jobs_of(args),
        sandbox=sandbox_mode(args),
        scheduler=scheduler_address(args.scheduler),
        only=scope_of(args, course),
        force=args.force or bool(wanted),
        students=wanted,
        out=Path(args.out).resolve(),
    )


def run(args: argparse.Namespace) -> int:
    from grader.classgrade.run import collect_class
    from grader.lms import Roster, read_roster
    from grader.lms.options import check_lms_names

    console = stderr_console()
    course = load_course(args.course)
    options, out = options_of(args, course), Path(args.out).resolve()
    if not options.scheduler:  # on a cluster, each worker says what sandbox it has
        warn_without_sandbox(course, options, console)
    check_lms_names(args)
    source = source_of(args)
    roster = Roster(read_roster(Path(args.roster))) if args.roster else None
    klass = collect_class(source, out, course=course, lms=args.lms, name_regexp=args.name_regexp, roster=roster)
    print_class(klass, source, console)
    skipped = dict(klass.skipped)  # entries that cannot be graded: reported, they never stop the class
    only = list(options.only) if options.only else None
    students, extractions = prepare_notebooks(course, klass.students, out, skipped, only)
    if not students:
        reasons = "; ".join(f"{entry}: {reason}" for entry, reason in sorted(skipped.items())[:10])
        raise GraderError(f"{source} holds no submission that can be graded: {reasons}")
    roster = ClassRoster(
        students, klass.root, skipped, partial=bool(options.students), submitted=klass.submitted, people=klass.people
    )
    if options.students:  # these only, graded again; the rest of the class keeps its results
        roster = only_these(roster, options.students, skipped, source)
    where = f"with {options.jobs} process{'es' if options.jobs > 1 else ''}"
    progress = ClassProgress(
        console, str(source), f"on the Dask cluster at {options.scheduler}" if options.scheduler else where
    )
    with progress.progress:
        result = grade_class(course, roster, options, listener=progress)
    keep_extractions(course, out, extractions)
    summary_table(console, course, result, out)
    if result.interrupted:
        console.print(
            f"[yellow]interrupted: {len(result.graded)} graded in this run are saved; run the same "
            "command again to grade the rest[/yellow]"
        )
        return 130
    return 1 if result.failed or klass.left_out else 0


def only_these(roster: ClassRoster, wanted: tuple[str, ...], skipped: dict, source: Path) -> ClassRoster:
    """The roster of ``--student``: these students graded again, the rest of the class keeping its results."""
    unknown = [s for s in wanted if s not in roster.students]
    if unknown:
        reasons = [f"{s}: {skipped[s]}" if s in skipped else s for s in unknown]
        found = sorted(roster.students)
        raise GraderError(
            f"no gradable submission in {source} for: {', '.join(reasons)} (students there: "
            f"{', '.join(found[:20])}{' ...' if len(found) > 20 else ''})"
        )
    return replace(
        roster,
        students={s: roster.students[s] for s in wanted},
        skipped={},
        others=[s for s in roster.students if s not in wanted],
    )
