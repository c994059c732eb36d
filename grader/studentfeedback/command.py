"""grader feedback: one readable page per student from a results directory."""

from __future__ import annotations

import argparse
from pathlib import Path

from rich.console import Console

from grader.display import markup


def register(sub, common) -> None:
    parser = sub.add_parser(
        "feedback",
        parents=[common],
        help="write each student's feedback (HTML and Markdown) from a results directory",
        description="Turn the results directory of `grader grade-class` (or grader-results/<assignment>/ of "
        "`grader autograde`) into one self-contained HTML page and one Markdown file per student: the "
        "total, each exercise's score and the messages of its failed checks (the misconception, never a "
        "hidden value), each assignment's due date and late policy, and the late penalty where "
        "grade-class read a submission time (timestamp.txt in the student's folder). Everything a student wrote is escaped; the pages run no script. Hand each "
        "student their own file.",
    )
    parser.add_argument("results_dir", metavar="RESULTS_DIR", help="the --out directory of grader grade-class")
    parser.add_argument(
        "-o",
        "--out",
        metavar="DIR",
        default=None,
        help="where to write <student>.html and <student>.md (default: RESULTS_DIR/feedback)",
    )
    parser.add_argument("--student", action="append", metavar="ID", help="only this student (repeatable)")
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from grader.studentfeedback.write import write_feedback

    out, students = write_feedback(Path(args.results_dir), Path(args.out) if args.out else None, args.student)
    Console(stderr=True, highlight=False).print(
        f"feedback for {len(students)} student(s): {markup(out)}/<student>.html and .md"
    )
    return 0
