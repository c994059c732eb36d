"""grader autograde: grade an nbgrader class with the trusted grader."""

from __future__ import annotations

import argparse
import os
import shlex
import time
from dataclasses import replace
from pathlib import Path

from rich.console import Console
from rich.table import Table

from grader.autograde.trusted import grade_ahead
from grader.calendar import describe, late_text
from grader.core.course import load_course
from grader.display import markup, text
from grader.engine.dispatch import GradingOptions
from grader.errors import GraderError
from grader.feedback import first_issue, format_points, function_report
from grader.options import (
    course_dir_option,
    db_option,
    engine_options,
    lms_options,
    resolve_course_dir,
    scheduler_address,
)
from grader.sandbox import add_sandbox_options, sandbox_mode


def register(sub, common) -> None:
    parser = sub.add_parser(
        "autograde",
        parents=[common],
        help="grade submitted/<student>/<assignment>/ and record it in nbgrader",
        description="Grade every submission of ASSIGNMENT in an nbgrader course directory built by `grader build`: "
        "the solution cells of each notebook become modules shaped like exercises/ (course code from "
        "the course), the hidden tests grade them in separate worker processes, never in a Jupyter "
        "kernel, and the grades are recorded as `nbgrader autograde` records them (autograded/ and the "
        "gradebook, by nbgrader's own autograde steps with the trusted grade in place of Execute). Then "
        "run `nbgrader generate_feedback` and `nbgrader export` as usual. A broken notebook gets a grade "
        "and a message; it never stops the class. With several assignments, one that cannot be graded "
        "(not built, no submissions, points changed since the build) is skipped with its reason and "
        "the others are graded; a final table says which. Exit status: 0 every assignment graded and "
        "recorded; 1 the gradebook disagrees with the grader; 2 nothing could be graded; 3 some "
        "assignments were skipped; 4 all graded, but entries of the --zip download were not collected "
        "(each named first, with its fix).",
    )
    parser.add_argument(
        "assignment",
        metavar="ASSIGNMENT",
        nargs="+",
        help="assignment id (course.yaml); several are autograded one after the other",
    )
    course_dir_option(parser)
    db_option(parser)
    parser.add_argument("--student", action="append", metavar="ID", help="grade only this student (repeatable)")
    engine_options(
        parser, jobs_help="trusted grading processes in parallel on this machine (default: one per core, at most 4)"
    )
    parser.add_argument(
        "--out",
        metavar="DIR",
        default=None,
        help="where the trusted records go, DIR/<assignment>/ (default: grader-results/ in the course directory)",
    )
    lms_options(
        parser,
        zip_help="first collect an LMS download (the zip of an assignment's submissions from Canvas, "
        "Moodle, Blackboard or Brightspace, or notebooks named <student>_<anything>.ipynb or "
        "<student>/<file>) into submitted/: each student by the LMS's own id (the roster's id, "
        "else canvas-<user id>, moodle-<participant>, the Blackboard username, brightspace-<user>), "
        "the time the LMS wrote into nbgrader's timestamp.txt (Blackboard, Brightspace); nested "
        "archives are never unpacked, and every entry not collected is named before grading, with "
        "the fix. --roster defaults to the gradebook's students with an LMS id",
    )
    parser.add_argument("--details", action="store_true", help="print every student's messages, not just totals")
    add_sandbox_options(parser)
    parser.set_defaults(func=run)


def default_jobs() -> int:
    """Grading processes when --jobs is not given: one per core, at most 4 (the class engine
    never starts more than it has submissions to grade)."""
    return max(1, min(os.cpu_count() or 1, 4))


def run(args: argparse.Namespace) -> int:
    from grader.autograde.trusted import RESULTS_DIR, grading_pool
    from grader.autograde.zipcollect import LmsDownload
    from grader.lms.options import check_lms_names

    console = Console(highlight=False)
    course = load_course(args.course, check_files=False)
    course_dir = resolve_course_dir(course, args.course_dir)
    if args.jobs is not None and args.jobs < 1:
        raise GraderError("--jobs must be at least 1")
    check_collection(args, check_lms_names)
    assignments = list(dict.fromkeys(args.assignment))
    for assignment in assignments:  # every id known before the first is graded
        course.assignment(assignment)
    if args.zip and len(assignments) > 1:
        raise GraderError("--zip collects the download of one assignment: give one ASSIGNMENT with it")
    options = GradingOptions.from_command_line(
        args,
        jobs=args.jobs or default_jobs(),
        sandbox=sandbox_mode(args),
        scheduler=scheduler_address(args.scheduler),
        students=tuple(args.student) if args.student else None,
        out=Path(args.out) if args.out else None,
    )
    roster = Path(args.roster) if args.roster else None
    download = LmsDownload(Path(args.zip), args.lms, args.name_regexp, roster) if args.zip else None
    logs = (Path(args.out).resolve() if args.out else course_dir / RESULTS_DIR) / "logs"
    rebuild = " ".join(
        [
            "grader build",
            *(["--course", shlex.quote(str(course.root))] if args.course else []),
            "--course-dir",
            shlex.quote(str(course_dir)),
            *(["--db", "URL"] if args.db else []),
        ]
    )
    outcomes: dict[str, tuple[str, str]] = {}  # assignment -> (what happened, detail)
    # One set of grading processes for every assignment: a sandbox and a pytest session each, once.
    with grading_pool(course, [course.assignment(a) for a in assignments], options, logs) as pool:
        # nbgrader takes about a second to import: only when autograding, while the grading processes start.
        from grader.autograde.pipeline import BEFORE_GRADING, FROM_GRADING, AutogradeInputs, autograde

        def skipped(assignment: str, exc: GraderError) -> None:
            if len(assignments) == 1:
                raise exc
            # One assignment that cannot be graded never stops the others.
            console.print(f"[bold yellow]skipped {markup(assignment)}:[/bold yellow] {markup(str(exc))}")
            outcomes[assignment] = ("skipped", str(exc))

        # Several assignments: each is prepared (found, enrolled, extracted), then all are graded in
        # one run of the grading processes, then each is recorded and reported as before.
        together = len(assignments) > 1 and pool is not None
        states = {}
        for assignment in assignments:
            try:
                inputs = AutogradeInputs.of(
                    course,
                    course_dir,
                    assignment,
                    replace(options, pool=pool),
                    download=download,
                    db_url=args.db,
                    console=console,
                    rebuild_command=rebuild,
                )
                states[assignment] = autograde(inputs, BEFORE_GRADING) if together else None
            except GraderError as exc:
                skipped(assignment, exc)
                continue
            if not together:
                try:
                    states[assignment] = autograde(inputs)
                except GraderError as exc:
                    skipped(assignment, exc)
                    continue
                finish(console, args, assignment, states[assignment], course_dir, outcomes)
        if together and states:
            ahead(console, course, course_dir, states, replace(options, pool=pool))
            for assignment, state in states.items():
                try:
                    autograde(state.inputs, FROM_GRADING, state)
                except GraderError as exc:
                    skipped(assignment, exc)
                    continue
                finish(console, args, assignment, state, course_dir, outcomes)
    if len(assignments) > 1:
        summary(console, outcomes)
    collected = [getattr(s, "collected", None) for s in states.values()]
    incomplete = any(c is not None and not c.complete for c in collected)
    return exit_status(outcomes, incomplete)


def check_collection(args, check_lms_names) -> None:
    """``--zip``'s options: given with it, and readable (``check_lms_names``: grader.lms's check, imported in run)."""
    for given, flag in ((args.name_regexp, "--name-regexp"), (args.lms != "auto", "--lms"), (args.roster, "--roster")):
        if given and not args.zip:
            raise GraderError(
                f"{flag} only applies with --zip"
                + (" (`grader roster CSV` fills the gradebook)" if flag == "--roster" else "")
            )
    check_lms_names(args)


def finish(console: Console, args, assignment: str, state, course_dir: Path, outcomes: dict) -> None:
    """Report an assignment autograded, and note its outcome."""
    code = report(console, args, assignment, state, course_dir)
    outcomes[assignment] = (
        "graded" if code == 0 else "MISMATCH",
        f"{len(state.students)} submission(s)" + (", the gradebook disagrees (above)" if code else ""),
    )


def ahead(console: Console, course, course_dir: Path, states: dict, options: GradingOptions) -> None:
    """Grade every prepared assignment's submissions in one run of the grading processes."""
    started = time.perf_counter()
    work = [(state.inputs.assignment, state.extractions) for state in states.values()]
    total = sum(len(extractions) for _, extractions in work)
    first = next(iter(states.values()))
    with first.inputs.progress() as progress:
        task = progress.add_task(
            f"grading {', '.join(states)} together (trusted grader, {options.jobs} job(s))", total=total
        )
        graded = grade_ahead(course, course_dir, work, options, on_advance=lambda n: progress.advance(task, n))
    seconds = time.perf_counter() - started
    console.print(
        f"graded {graded} submission(s) of {len(states)} assignments in one run: took {seconds:.2f} s (grade {seconds:.2f})"
    )


def exit_status(outcomes: dict[str, tuple[str, str]], incomplete: bool = False) -> int:
    """0 all graded and recorded; 1 a gradebook disagrees; 2 nothing graded; 3 some skipped; 4 all graded,
    but the LMS download left entries out (``incomplete``)."""
    kinds = [kind for kind, _ in outcomes.values()]
    if "MISMATCH" in kinds:
        return 1
    if "graded" not in kinds:
        return 2
    if "skipped" in kinds:
        return 3
    return 4 if incomplete else 0


def summary(console: Console, outcomes: dict[str, tuple[str, str]]) -> None:
    """The last thing printed for several assignments: which were graded and which skipped, and why."""
    table = Table(title="autograde: every assignment asked for")
    table.add_column("assignment")
    table.add_column("outcome")
    table.add_column("detail", overflow="fold", max_width=90)
    colour = {"graded": "green", "skipped": "yellow", "MISMATCH": "red"}
    for assignment, (kind, detail) in outcomes.items():
        table.add_row(text(assignment, one_line=True), f"[{colour[kind]}]{kind}[/{colour[kind]}]", text(detail))
    console.print(table)


def report(console: Console, args: argparse.Namespace, assignment: str, state, course_dir: Path) -> int:
    """What the autograde of ``assignment`` did; 1 when the gradebook does not hold the trusted grades."""
    for warning in state.warnings:
        console.print(f"[yellow]warning:[/yellow] {markup(warning)}")
    for line in state.restored:
        console.print(f"[red]tampering undone:[/red] {markup(line)}")

    course = state.inputs.course
    due = course.assignment(assignment).due
    calendar = f"due {due:%Y-%m-%d %H:%M} {course.time_zone}, {describe(course.late_policy)}" if due else "no due date"
    table = Table(title=text(f"{assignment}: {len(state.students)} submission(s) ({calendar})", one_line=True))
    table.add_column("student")
    table.add_column("score", justify="right")
    if state.late:
        table.add_column("late (penalty)", justify="right")
    table.add_column("first thing to look at", overflow="fold", max_width=80)
    for student in state.students:
        record = state.records[student]
        flag = " (rescued)" if student in state.rescued else ""
        collected = getattr(state, "collected", None)
        person = collected.people.get(student) if collected else None
        if person is not None and person.lms != "generic":
            flag = f" ({person.display_name}){flag}"
        late = state.late.get(student)
        late_cell = [f"{late_text(late[0])} (-{format_points(late[1])})" if late else ""] if state.late else []
        # The gradebook's score, what formgrader and exports show: a manual grade there changes it.
        score, manual = state.final.get(student, (record.total, []))
        written = course.assignment(assignment).written  # graded by hand in formgrader, off by default
        shown_score = f"{format_points(score)}/{format_points(record.max + sum(w.points for w in written))}"
        if manual:
            shown_score += f" (manual: {', '.join(manual)}; autograded {format_points(record.total)})"
        waiting = [w.grade_id for w in written if w.grade_id not in manual]
        if waiting:
            shown_score += f" (to grade by hand: {', '.join(waiting)})"
        table.add_row(text(student + flag, one_line=True), text(shown_score), *late_cell, text(first_issue(record)))
        if args.details:
            for function in record.result.functions:
                console.print(text(function_report(record, function)), end="")
    console.print(table)
    same_db = " (with the same --db)" if args.db else ""
    gradebook = state.inputs.gradebook
    console.print(
        f"recorded in the gradebook {markup(gradebook.shown)}; next: `nbgrader generate_feedback "
        f"{markup(assignment)}` and `nbgrader export` in {markup(course_dir)}{same_db}"
    )
    console.print(
        f"took {sum(state.seconds.values()):.2f} s ("
        + ", ".join(f"{step} {seconds:.2f}" for step, seconds in state.seconds.items())
        + ")"
    )
    if state.mismatches:
        for line in state.mismatches:
            console.print(f"[red]mismatch[/red] {markup(line)}")
        console.print("[red]the gradebook does not hold the trusted grades[/red]")
        return 1
    return 0
