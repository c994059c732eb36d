"""grader grade: grade submissions with the hidden tests."""

from __future__ import annotations

import argparse
import json
import tempfile
from pathlib import Path

from rich.console import Console

from grader.core.course import load_course
from grader.core.fingerprint import run_fingerprint
from grader.engine.driver import grade_here
from grader.engine.options import GradingOptions
from grader.engine.parcel import Parcel
from grader.errors import GraderError
from grader.feedback import print_grades
from grader.feedback.gradescope import write_gradescope
from grader.notebooks.submission import check_path, notebook_scope, prepare
from grader.options import settings_options
from grader.sandbox import add_sandbox_options, sandbox_launcher, sandbox_mode


def register(sub, common) -> None:
    parser = sub.add_parser(
        "grade",
        parents=[common],
        help="grade submissions with the hidden tests",
        description="Grade one or more submissions with the hidden tests. A submission is a directory "
        "shaped like exercises/, a single .py file, a notebook (.ipynb) or a folder of notebooks "
        "(with or without .py files: per function, the source that implements it is graded, and "
        "the messages say which file and cell). The student's code runs in a separate "
        "worker process, inside a bubblewrap sandbox with resource limits (course.yaml "
        "`sandbox:`); tests and expected values never leave the grader. Exit status 0 "
        "means grading ran (whatever the grade).",
    )
    parser.add_argument("submissions", nargs="+", metavar="SUBMISSION", help="directory, .py file or notebook")
    parser.add_argument(
        "--json", action="store_true", help="print one JSON object per submission (one line each) instead of tables"
    )
    parser.add_argument("--only", action="append", metavar="FUNCTION", help="grade only this function (repeatable)")
    parser.add_argument(
        "--gradescope",
        metavar="OUT",
        default=None,
        help="also write Gradescope's results.json to OUT (a file, or a directory to put it in); one submission only",
    )
    add_sandbox_options(parser)
    settings_options(parser)
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    course = load_course(args.course)
    if args.gradescope and len(args.submissions) != 1:
        raise GraderError("--gradescope writes the results of one submission (Gradescope grades one per run)")
    with tempfile.TemporaryDirectory(prefix="grader-notebooks-") as work:
        return _grade(args, course, Path(work))


def _grade(args: argparse.Namespace, course, work: Path) -> int:
    parcels, extractions = [], {}
    for i, p in enumerate(args.submissions):
        # A notebook (or a folder with notebooks) is graded through its extracted modules.
        path, extractions[f"s{i}"] = prepare(course, check_path(p), work / f"s{i}", args.only)
        only = notebook_scope(course, p, extractions[f"s{i}"], args.only)
        parcels.append(Parcel.read(f"s{i}", path, label=p, only=only))
    console = Console()
    progress = None
    if not args.json and len(parcels) > 1:
        progress = console.status("grading ...")
        progress.start()
    errors = Console(stderr=True)
    options = GradingOptions.from_command_line(args, sandbox=sandbox_mode(args))
    try:
        with sandbox_launcher(
            course,
            mode=options.sandbox,
            warn=lambda text: errors.print(text, style="bold red", markup=False),
            cgroups=options.cgroups,
            bubblewrap=options.bubblewrap,
        ) as launcher:
            records = grade_here(
                course,
                parcels,
                launcher=launcher,
                only=args.only,
                course_hash=run_fingerprint(course, args.only),
                replay=options.replay,
            )
    finally:
        if progress is not None:
            progress.stop()
    for parcel in parcels:
        record = records[parcel.student]
        extraction = extractions[parcel.student]
        if extraction is not None:
            record = record.with_extraction(parcel.label, extraction)
        if args.json:
            data = record.result.to_json()
            if extraction is not None:
                data["notes"] = record.notes
            print(json.dumps(data))
        else:
            print_grades(record.result, console, record if extraction is not None else None)
        if args.gradescope:
            write_gradescope(record, args.gradescope, visibility=course.gradescope["visibility"])
    return 0
