"""grader grade: grade submissions with the hidden tests."""

from __future__ import annotations

import argparse
import json

from rich.console import Console

from grader.course import load_course
from grader.display import markup
from grader.errors import GraderError
from grader.grade.render import print_grades
from grader.grade.runner import check_submission_path, run_tests
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
    paths = [check_submission_path(p) for p in args.submissions]
    if args.gradescope and len(paths) != 1:
        raise GraderError("--gradescope writes the results of one submission (Gradescope grades one per run)")
    ids = {f"s{i}": p for i, p in enumerate(paths)}
    console = Console()
    progress = None
    if not args.json and len(ids) > 1:
        progress = console.status("grading ...")
        progress.start()
    errors = Console(stderr=True)
    try:
        with sandbox_launcher(course, mode=sandbox_mode(args),
                              warn=lambda text: errors.print(f"[bold red]{markup(text, one_line=False)}[/bold red]")) as launcher:
            results = run_tests(course, ids, only=args.only, launcher=launcher)
    finally:
        if progress is not None:
            progress.stop()
    for sid, path in ids.items():
        result = results[sid]
        result.submission = str(args.submissions[list(ids).index(sid)])
        if args.json:
            print(json.dumps(result.to_json()))
        else:
            print_grades(course, result, console)
        if args.gradescope:
            from grader.export.gradescope import write_gradescope

            write_gradescope(result, args.gradescope, visibility=course.gradescope["visibility"],
                             execution_time=result.elapsed)
    return 0
