"""grader roster, grader export: the class's people into nbgrader's gradebook, its grades out to an LMS."""

from __future__ import annotations

import argparse
from pathlib import Path

from rich.console import Console

from grader.course import load_course
from grader.display import markup
from grader.options import course_dir_option, db_option, resolve_course_dir

FORMATS = ("csv", "canvas", "moodle")  # grader.export.roster.FORMATS


def register(sub, common) -> None:
    roster = sub.add_parser(
        "roster", parents=[common], help="add the class's students (names, e-mails, LMS ids) to the gradebook",
        description="Read ROSTER_CSV (a header line, then one line per student: id, name or first_name and "
                    "last_name, email, lms_id) and add or update each student in nbgrader's gradebook, so "
                    "formgrader, `nbgrader export` and `grader export` show names and e-mails. id is the "
                    "student id of submitted/<id>/ (and of an LMS download); lms_id is the LMS's user id "
                    "(Canvas's ID, Moodle's ID number). A bad line stops with its line number; nothing is "
                    "written then.")
    roster.add_argument("roster", metavar="ROSTER_CSV", help="the roster, a CSV file with a header line")
    course_dir_option(roster)
    db_option(roster)
    roster.set_defaults(func=run_roster)

    export = sub.add_parser(
        "export", parents=[common], help="write the gradebook's grades as a file an LMS imports as is",
        description="Write the final score of every student and assignment of nbgrader's gradebook (manual "
                    "grades included, minus late penalties) as a CSV file: --lms canvas (Grades > Import: "
                    "Student, ID, SIS User ID, SIS Login ID, Section, one column per assignment and a Points "
                    "Possible row), --lms moodle (Import grades from CSV: First name, Last name, ID number, Email "
                    "address, one column per assignment), or --lms csv (student_id, names, email, lms_id, one "
                    "column per assignment, total). Names and ids come from `grader roster`.")
    export.add_argument("--lms", choices=FORMATS, default="csv", help="the file's format (default: csv)")
    export.add_argument("-o", "--output", metavar="FILE", default=None,
                        help="where to write (default: grades-<lms>.csv in the course directory)")
    export.add_argument("--assignment", action="append", metavar="ID",
                        help="only this assignment (repeatable; default: every assignment of the gradebook)")
    course_dir_option(export)
    db_option(export)
    export.set_defaults(func=run_export)


def _gradebook(args):
    from grader.autograde.gradebook import course_gradebook

    course = load_course(args.course, check_files=False)
    course_dir = resolve_course_dir(course, args.course_dir)
    return course, course_dir, course_gradebook(course_dir, args.db)


def run_roster(args: argparse.Namespace) -> int:
    from grader.export.roster import fill_gradebook, read_roster

    people = read_roster(Path(args.roster))
    _, _, target = _gradebook(args)
    with target.open() as gb:
        added, updated = fill_gradebook(gb, people)
    Console(highlight=False).print(f"roster: {added} student(s) added and {updated} updated in the gradebook "
                                   f"{markup(target.shown)}")
    return 0


def run_export(args: argparse.Namespace) -> int:
    from grader.export.roster import export_rows, gradebook_grades, write_csv

    course, course_dir, target = _gradebook(args)
    titles: dict[str, str] = {}  # columns are named by assignment id: name the LMS's columns alike, or map them
    with target.open() as gb:
        maxima, rows = gradebook_grades(gb, args.assignment)
    output = Path(args.output) if args.output else course_dir / f"grades-{args.lms}.csv"
    write_csv(output, export_rows(args.lms, maxima, rows, titles))
    Console(highlight=False).print(f"{len(rows)} student(s), {len(maxima)} assignment(s): {markup(output)} "
                                   f"({args.lms})")
    return 0
