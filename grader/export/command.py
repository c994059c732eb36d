"""grader roster, grader export: the class's people into nbgrader's gradebook, its grades out to an LMS."""

from __future__ import annotations

import argparse

from grader.options import course_dir_option, db_option

FORMATS = ("csv", "canvas", "moodle")  # grader.export.roster.FORMATS


def register(sub, common) -> None:
    roster = sub.add_parser(
        "roster",
        parents=[common],
        help="add the class's students (names, e-mails, LMS ids) to the gradebook",
        description="Read ROSTER_CSV (a header line, then one line per student: id, name or first_name and "
        "last_name, email, lms_id) and add or update each student in nbgrader's gradebook, so "
        "formgrader, `nbgrader export` and `grader export` show names and e-mails. id is the "
        "student id of submitted/<id>/ (and of an LMS download); lms_id is the LMS's user id "
        "(Canvas's ID, Moodle's ID number). A bad line stops with its line number; nothing is "
        "written then.",
    )
    roster.add_argument("roster", metavar="ROSTER_CSV", help="the roster, a CSV file with a header line")
    course_dir_option(roster)
    db_option(roster)
    roster.set_defaults(func=run, action="roster")

    export = sub.add_parser(
        "export",
        parents=[common],
        help="write the gradebook's grades as a file an LMS imports as is",
        description="Write the final score of every student and assignment of nbgrader's gradebook (manual "
        "grades included, minus late penalties) as a CSV file: --lms canvas (Grades > Import: "
        "Student, ID, SIS User ID, SIS Login ID, Section, one column per assignment and a Points "
        "Possible row), --lms moodle (Import grades from CSV: First name, Last name, ID number, Email "
        "address, one column per assignment), or --lms csv (student_id, names, email, lms_id, one "
        "column per assignment, total). Names and ids come from `grader roster`.",
    )
    export.add_argument("--lms", choices=FORMATS, default="csv", help="the file's format (default: csv)")
    export.add_argument(
        "-o",
        "--output",
        metavar="FILE",
        default=None,
        help="where to write (default: grades-<lms>.csv in the course directory)",
    )
    export.add_argument(
        "--canvas-gradebook",
        metavar="CSV",
        default=None,
        help="with --lms canvas: the gradebook Canvas exports (Grades > Export): its assignments' headers "
        "and its students' Student, ID, SIS and Section cells make the file import as is (an assignment's "
        "column: course.yaml lms.columns, else the one named like its id or title)",
    )
    export.add_argument(
        "--roster",
        metavar="CSV",
        default=None,
        help="the roster (see `grader roster`), for the SIS User ID, SIS Login ID and Section of Canvas's file",
    )
    export.add_argument(
        "--assignment",
        action="append",
        metavar="ID",
        help="only this assignment (repeatable; default: every assignment of the gradebook)",
    )
    course_dir_option(export)
    db_option(export)
    export.set_defaults(func=run, action="export")
    register_gradebook(sub, common)


def register_gradebook(sub, common) -> None:
    gradebook = sub.add_parser(
        "gradebook",
        parents=[common],
        help="manage nbgrader's gradebook (copy it to another database)",
        description="Operations on nbgrader's gradebook as a whole.",
    )
    verbs = gradebook.add_subparsers(dest="gradebook_command", metavar="VERB", required=True)
    copy = verbs.add_parser(
        "copy",
        help="copy every grade of a gradebook into another, empty database",
        description="Copy the whole gradebook (students, assignments, submissions, grades, comments, manual "
        "grades, late penalties) from the database --from into the empty database --to, e.g. from "
        "the course's SQLite file to PostgreSQL before a teaching team shares it; then point the "
        "course at --to (`grader build --db URL`). Rows are counted on both sides; on any problem "
        "nothing is written. Keep passwords out of URLs (~/.pgpass or PGPASSWORD).",
    )
    copy.add_argument(
        "--from",
        dest="source",
        metavar="URL",
        required=True,
        help="the gradebook now, e.g. sqlite:////path/course-build/gradebook.db",
    )
    copy.add_argument(
        "--to",
        dest="dest",
        metavar="URL",
        required=True,
        help="an empty database, e.g. postgresql://grader@db.example.org/rl_llm_m4",
    )
    copy.set_defaults(func=run, action="gradebook-copy")


def run(args: argparse.Namespace) -> int:
    from grader.export.actions import ACTIONS

    return ACTIONS[args.action](args)
