"""grader report: one self-contained HTML page about a graded class."""

from __future__ import annotations

import argparse
from pathlib import Path

from rich.console import Console

from grader.report.build import write_report


def register(sub, common) -> None:
    parser = sub.add_parser(
        "report",
        parents=[common],
        help="write an HTML report of a class graded with grade-class",
        description="Turn the results directory of `grader grade-class` into one self-contained HTML page "
        "(plots embedded): score histograms per assignment, the pass rate of every function, "
        "the most frequent misconception messages with example students, the submissions "
        "that hit a limit (time, CPU, memory, output, crashes), the grading time, and each "
        "assignment's due date with the late policy and every late submission's penalty (where "
        "grade-class read a submission time from timestamp.txt).",
    )
    parser.add_argument("results_dir", metavar="RESULTS_DIR", help="the --out directory of grader grade-class")
    parser.add_argument(
        "-o",
        "--output",
        metavar="FILE",
        default=None,
        help="where to write the page (default: RESULTS_DIR/report.html)",
    )
    parser.add_argument(
        "--screenshot",
        metavar="PNG",
        default=None,
        help="also render the page in headless Chromium into this PNG (needs chromium)",
    )
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    console = Console(stderr=True)
    with console.status("drawing the report ..."):
        path = write_report(Path(args.results_dir), Path(args.output) if args.output else None)
    console.print(f"report: {path}")
    if args.screenshot:
        from grader.report.screenshot import screenshot

        with console.status("rendering in headless Chromium ..."):
            png = screenshot(path, Path(args.screenshot))
        console.print(f"screenshot: {png}")
    return 0
