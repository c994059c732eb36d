"""The work of ``grader roster``, ``grader export`` and ``grader gradebook copy`` (imported when one of
them runs: the gradebook's database and nbgrader are heavy, and ``grader --help`` needs neither)."""

from __future__ import annotations

import argparse
from pathlib import Path

from rich.console import Console

from grader.core.course import load_course
from grader.display import markup
from grader.export.canvas import canvas_columns, read_canvas_gradebook
from grader.export.gbcopy import copy_gradebook
from grader.export.roster import ExportPlan, export_rows, fill_gradebook, gradebook_grades, read_roster, write_csv
from grader.notebooks.gradebook import course_gradebook, masked_url
from grader.options import resolve_course_dir


def run_gradebook_copy(args: argparse.Namespace) -> int:
    copied = copy_gradebook(args.source, args.dest)
    Console(highlight=False).print(
        f"copied {copied.total} row(s) from {markup(masked_url(args.source))} to "
        f"{markup(masked_url(args.dest))}: " + ", ".join(f"{name} {n}" for name, n in copied.rows.items() if n)
    )
    return 0


def _gradebook(args):
    course = load_course(args.course, check_files=False)
    course_dir = resolve_course_dir(course, args.course_dir)
    return course, course_dir, course_gradebook(course_dir, args.db)


def run_roster(args: argparse.Namespace) -> int:
    people = read_roster(Path(args.roster))
    _, _, target = _gradebook(args)
    with target.open() as gb:
        added, updated = fill_gradebook(gb, people)
    Console(highlight=False).print(
        f"roster: {added} student(s) added and {updated} updated in the gradebook {markup(target.shown)}"
    )
    return 0


def run_export(args: argparse.Namespace) -> int:
    course, course_dir, target = _gradebook(args)
    console = Console(highlight=False)
    if args.canvas_gradebook and args.lms != "canvas":
        console.print("[yellow]Canvas's own gradebook is read for Canvas's file only: not read[/yellow]")
    with target.open() as gb:
        maxima, rows = gradebook_grades(gb, args.assignment)
    plan = ExportPlan(roster={p.id: p for p in read_roster(Path(args.roster))} if args.roster else {})
    if args.lms == "canvas":
        plan.canvas = read_canvas_gradebook(Path(args.canvas_gradebook)) if args.canvas_gradebook else None
        titles = [(a, course.assignment(a).title if a in {x.id for x in course.assignments} else a) for a in maxima]
        plan.columns = canvas_columns(titles, plan.canvas, course.lms_columns)
    elif args.lms == "moodle":
        plan.columns = {a: (course.lms_columns.get(a) or {}).get("moodle", a) for a in maxima}
    output = Path(args.output) if args.output else course_dir / f"grades-{args.lms}.csv"
    write_csv(output, export_rows(args.lms, maxima, rows, plan))
    console.print(
        f"{len(rows) - len(plan.left_out)} student(s), {len(maxima)} assignment(s): {markup(output)} ({args.lms})"
    )
    for line in plan.left_out:
        console.print(f"[yellow]not in the file:[/yellow] {markup(line)}")
    if args.lms == "canvas" and plan.canvas is None and not all(a in course.lms_columns for a in maxima):
        console.print(
            "[yellow]Canvas creates a new assignment for every header it does not know:[/yellow] give its own "
            "gradebook export (Grades > Export) with --canvas-gradebook, or name each assignment's Canvas "
            'column in course.yaml (lms: {columns: {ps4b: {canvas: "Problem Set 4b (123456)"}}})'
        )
    return 1 if plan.left_out else 0


ACTIONS = {"roster": run_roster, "export": run_export, "gradebook-copy": run_gradebook_copy}
