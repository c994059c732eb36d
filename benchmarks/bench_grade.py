"""Benchmark: wall time of `grader grade` on the reference and on the stubs.

Prints figures (median of several runs) and ratios against a baseline measured in
the same run: the cost of merely starting Python and importing numpy + pytest.
Goal: grading the reference submission end to end in under 2 s, for the function
and answer exercises. The labs train policies (two CartPole PPO runs, three tiny
sequence-policy runs) and are timed on their own.

Usage: python benchmarks/bench_grade.py [--repeat N]
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def timed(argv: list[str], env: dict | None = None) -> float:
    started = time.perf_counter()
    proc = subprocess.run(argv, cwd=ROOT, capture_output=True, text=True, env=env)
    elapsed = time.perf_counter() - started
    if proc.returncode != 0:
        sys.exit(f"command failed: {' '.join(argv)}\n{proc.stderr}")
    return elapsed


def median_time(argv: list[str], repeat: int) -> float:
    return statistics.median(timed(argv) for _ in range(repeat))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--repeat", type=int, default=5, help="runs per measurement (median reported)")
    parser.add_argument("--skip-labs", action="store_true", help="do not time the lab trainings")
    args = parser.parse_args()
    sys.path.insert(0, str(ROOT))
    from grader.core.course import load_course

    course = load_course(ROOT)
    only = [arg for e in course.exercises if e.kind != "lab" for arg in ("--only", e.function)]
    labs = [arg for e in course.exercises if e.kind == "lab" for arg in ("--only", e.function)]
    python = sys.executable
    grade = [python, "-m", "grader", "grade", "--json"]
    baseline = median_time([python, "-c", "import numpy, pytest, hypothesis"], args.repeat)
    with tempfile.TemporaryDirectory() as empty:
        # The property tests' cases are drawn once and cached; the first run pays for drawing.
        cold = timed(grade + ["solutions"] + only, env=dict(os.environ, GRADER_CASES_CACHE=empty))
    reference = median_time(grade + ["solutions"] + only, args.repeat)
    stubs = median_time(grade + ["exercises"] + only, args.repeat)
    both = median_time(grade + ["solutions", "exercises"] + only, args.repeat)
    print(
        f"runs per figure: {args.repeat} (median); {len(only) // 2} function and answer exercises, "
        f"{len(labs) // 2} labs"
    )
    print(f"baseline: python + import numpy, pytest, hypothesis   {baseline:6.2f} s")
    print(
        f"grade solutions   (reference, all but the labs)       {reference:6.2f} s"
        f"   = {reference / baseline:4.1f} x baseline   goal < 2 s: {'met' if reference < 2 else 'NOT met'}"
    )
    print(f"grade solutions, first run (empty case cache)         {cold:6.2f} s   = {cold / baseline:4.1f} x baseline")
    print(
        f"grade exercises   (untouched stubs)                   {stubs:6.2f} s   = {stubs / baseline:4.1f} x baseline"
    )
    print(
        f"grade solutions + exercises (one session)             {both:6.2f} s"
        f"   marginal cost of a second submission {both - reference:5.2f} s"
    )
    if labs and not args.skip_labs:
        lab = timed(grade + ["solutions"] + labs)
        print(f"grade solutions, labs only (trainings; one run)       {lab:6.2f} s")


if __name__ == "__main__":
    main()
