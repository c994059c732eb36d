"""Render a class report in headless Chromium and save a screenshot, to look at it.

Grades a small sample class of the toy course (or takes RESULTS_DIR of an earlier
`grader grade-class`), writes the report, renders it in headless Chromium and
saves the page as a PNG. Prints the paths and sizes; exits non-zero if Chromium
is missing or the page does not render.

Usage: python benchmarks/render_report.py [RESULTS_DIR] [--out report.png] [--width 1200] [--height 3000]

Debian/Ubuntu: apt-get install chromium chromium-driver
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from grader.errors import GraderError  # noqa: E402
from grader.report.build import write_report  # noqa: E402
from grader.report.screenshot import screenshot  # noqa: E402


def sample_results(work: Path) -> Path:
    """Grade the toy course's sample class with `grader grade-class`; the results directory."""
    from tests.toy_course import make_toy_course, write_sample_class

    course = make_toy_course(work / "course")
    submissions = write_sample_class(work / "class")
    out = work / "results"
    proc = subprocess.run(
        [
            sys.executable,
            "-m",
            "grader",
            "grade-class",
            str(submissions),
            "--out",
            str(out),
            "--course",
            str(course),
            "-j",
            "2",
        ],
        capture_output=True,
        text=True,
        cwd=work,
    )
    if proc.returncode != 0:
        raise GraderError(proc.stderr)
    return out


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("results_dir", nargs="?", help="a grade-class results directory (default: a sample class)")
    parser.add_argument("--out", default=None, help="the screenshot (default: RESULTS_DIR/report.png)")
    parser.add_argument("--width", type=int, default=1200)
    parser.add_argument("--height", type=int, default=3000)
    args = parser.parse_args()
    try:
        results = (
            Path(args.results_dir)
            if args.results_dir
            else sample_results(Path(tempfile.mkdtemp(prefix="grader-report-")))
        )
        html = write_report(results)
        png = screenshot(html, Path(args.out) if args.out else results / "report.png", args.width, args.height)
    except GraderError as exc:
        print(f"render_report: {exc}", file=sys.stderr)
        return 1
    print(f"report:     {html} ({html.stat().st_size / 1024:.0f} KB, self-contained)")
    print(f"screenshot: {png} ({png.stat().st_size / 1024:.0f} KB, {args.width}x{args.height})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
