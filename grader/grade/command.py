"""grader grade: grade submissions with the hidden tests."""

from __future__ import annotations

import argparse
import json

from rich.console import Console

from grader.course import load_course
from grader.engine.driver import grade_here
from grader.engine.fingerprint import run_fingerprint
from grader.engine.parcel import Parcel, check_submission_path
from grader.errors import GraderError
from grader.feedback import print_grades
from grader.sandbox import add_sandbox_options, sandbox_launcher, sandbox_mode


def register(sub, common) -> None:
    parser = sub.add_parser(
        "grade", parents=[common], help="grade submissions with the hidden tests",
        description="Grade one or more submissions with the hidden tests. A submission is a directory "
                    "shaped like exercises/ or a single .py file. The student's code runs in a separate "
                    "worker process, inside a bubblewrap sandbox with resource limits (course.yaml "
                    "`sandbox:`); tests and expected values never leave the grader. Exit status 0 "
                    "means grading ran (whatever the grade).")
    parser.add_argument("submissions", nargs="+", metavar="SUBMISSION", help="directory or .py file")
    parser.add_argument("--json", action="store_true",
                        help="print one JSON object per submission (one line each) instead of tables")
    parser.add_argument("--only", action="append", metavar="FUNCTION",
                        help="grade only this function (repeatable)")
    parser.add_argument("--gradescope", metavar="OUT", default=None,
                        help="also write Gradescope's results.json to OUT (a file, or a directory to put it in); "
                             "one submission only")
    add_sandbox_options(parser)
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    course = load_course(args.course)
    if args.gradescope and len(args.submissions) != 1:
        raise GraderError("--gradescope writes the results of one submission (Gradescope grades one per run)")
    parcels = [Parcel.read(f"s{i}", check_submission_path(p), label=p, only=args.only)
               for i, p in enumerate(args.submissions)]
    console = Console()
    progress = None
    if not args.json and len(parcels) > 1:
        progress = console.status("grading ...")
        progress.start()
    errors = Console(stderr=True)
    try:
        with sandbox_launcher(course, mode=sandbox_mode(args),
                              warn=lambda text: errors.print(text, style="bold red", markup=False)) as launcher:
            records = grade_here(course, parcels, launcher=launcher, only=args.only,
                                 course_hash=run_fingerprint(course, args.only))
    finally:
        if progress is not None:
            progress.stop()
    for parcel in parcels:
        record = records[parcel.student]
        if args.json:
            print(json.dumps(record.result.to_json()))
        else:
            print_grades(record.result, console)
        if args.gradescope:
            from grader.export.gradescope import write_gradescope

            write_gradescope(record, args.gradescope, visibility=course.gradescope["visibility"])
    return 0
