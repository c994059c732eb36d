"""grader similarity: pairs of students with similar code or shared rare wrong replies, for instructors."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from rich.console import Console

from grader.errors import GraderError

DESCRIPTION = """\
Rank the pairs of a class's submissions by the evidence that they share work, per assignment: similar
code (each function compared with the released stub and its docstring left out, robust to renamed
variables, reformatting, comments, reordered independent statements and dead code) and wrong replies
to the same hidden inputs that agree where few students in the class give that value (from the grade
records, without regrading). Writes an index page and one page per pair (the two codes side by side,
matching lines marked) for instructors; never shown to students. "Flagged" pairs have more matching
code than this class's threshold: evidence for a person to weigh, never a verdict (docs/similarity.md).
"""


def register(sub, common) -> None:
    parser = sub.add_parser(
        "similarity",
        parents=[common],
        help="pairs of students with similar code or shared rare wrong replies (instructors only)",
        description=DESCRIPTION,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument(
        "submissions",
        metavar="SUBMISSIONS",
        help="a folder of submissions as grade-class takes it (one folder, .py file or <student>_<assignment>.ipynb "
        "per student), or an nbgrader course directory (its submitted/ folder is read)",
    )
    parser.add_argument(
        "--assignment", action="append", default=[], metavar="A", help="only this assignment (repeatable)"
    )
    parser.add_argument("--json", action="store_true", help='print {"pairs": [...]} on standard output')
    parser.add_argument(
        "--out",
        metavar="DIR",
        default=None,
        help="where the pages go (default: RESULTS/similarity with --results, an nbgrader course's "
        "grader-results/similarity, else ./similarity)",
    )
    parser.add_argument(
        "--results",
        metavar="DIR",
        default=None,
        help="the --out directory of grade-class, whose records give the wrong replies (an nbgrader course: "
        "grader-results/<assignment>/ by default)",
    )
    parser.add_argument(
        "--lms",
        metavar="NAME",
        default=None,
        help="SUBMISSIONS is an LMS download (a .zip, or its folder): auto, canvas, moodle, blackboard, brightspace "
        "or generic, read by the collection part grade-class and autograde use (each student by the LMS's own id)",
    )
    parser.add_argument("--name-regexp", metavar="RE", default=None, help="with --lms generic: how names read")
    parser.add_argument("--roster", metavar="CSV", default=None, help="with --lms: who the students are")
    parser.add_argument(
        "--top",
        type=int,
        default=20,
        metavar="N",
        help="pairs listed per assignment besides the flagged ones (default 20)",
    )
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    try:
        from grader.similarity.run import FromLms, similarity
    except ImportError as exc:  # the instructors' extra is not installed (a student kit never has it)
        raise GraderError(
            f"grader similarity needs copydetect ({exc}): pip install 'rl-llm-m4-grader[similarity]'"
        ) from None

    console = Console(stderr=True)
    lms = args.lms or ("auto" if str(args.submissions).endswith(".zip") else None)
    report = similarity(
        Path(args.submissions),
        course_dir=args.course,
        assignments=args.assignment,
        out=Path(args.out) if args.out else None,
        results=Path(args.results) if args.results else None,
        top=max(0, args.top),
        console=console,
        download=None if lms is None else FromLms(lms, args.name_regexp, Path(args.roster) if args.roster else None),
    )
    if args.json:
        json.dump(report, sys.stdout, indent=1)
        sys.stdout.write("\n")
    return 0
