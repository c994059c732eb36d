"""Benchmark: the crossings of grading one correct submission, and where their cost goes (prints figures).

Grades the reference solutions (``grader grade``, one session, no sandbox) and counts
every request sent to the worker, by kind and by function, with the wall time the
trusted side waited for them. Then it sends the same requests again, in this process,
to the worker's own request handler (``runtime.Worker``, on the reference solutions),
to separate the worker's CPU for handling them (decoding, the student's function,
encoding) from what the crossing itself costs (pipes, the trusted side's encoding and
checks, process switches).

Without ``--labs`` the labs are left out (the unit exercises and concept checks); with it
they are graded too (their replay: a few ``map`` crossings carrying thousands of calls).

Usage: python benchmarks/bench_calls.py [--labs]
"""

from __future__ import annotations

import argparse
import collections
import contextlib
import io
import json
import os
import sys
import time
from pathlib import Path

for _var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ[_var] = "1"

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from grader.course import load_course  # noqa: E402
from grader.worker import client, runtime  # noqa: E402


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--labs", action="store_true", help="grade the labs too")
    args = parser.parse_args()
    course = load_course(ROOT)
    functions = [e.function for e in course.exercises if args.labs or e.kind != "lab"]

    sent: list[dict] = []
    waited: collections.Counter = collections.Counter()
    request = client.WorkerProcess.request

    def counting(self, message, timeout):
        started = time.perf_counter()
        try:
            return request(self, message, timeout)
        finally:
            sent.append(message)
            waited[message.get("op")] += time.perf_counter() - started

    client.WorkerProcess.request = counting
    from grader.cli import main as grader_main

    argv = ["grade", "--json", "--no-sandbox", str(course.solutions_dir)]
    for function in functions:
        argv += ["--only", function]
    trusted = time.process_time()
    with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
        try:
            grader_main(argv)
        except SystemExit:
            pass
    trusted = time.process_time() - trusted
    client.WorkerProcess.request = request

    by_op = collections.Counter(m.get("op") for m in sent)
    by_function = collections.Counter(m.get("function") or m.get("name") for m in sent if m.get("op") != "import")
    calls = sum(m.get("count", 1) for m in sent if m.get("op") in ("call", "map"))
    print(f"one correct submission, {len(functions)} exercises{' (labs included)' if args.labs else ' (labs left out)'}:")
    print(f"  crossings: {len(sent)} (" + ", ".join(f"{op} {n}" for op, n in by_op.most_common()) + f"); "
          f"calls of student functions: {calls}")
    print("  wall time waited: " + ", ".join(f"{op} {s:.2f} s" for op, s in waited.most_common()))
    print("  most crossings: " + ", ".join(f"{f} {n}" for f, n in by_function.most_common(6)))
    print(f"  trusted process CPU for the whole grading (pytest session included): {trusted:.2f} s")

    worker = runtime.Worker(str(course.solutions_dir))
    started = time.process_time()
    for message in sent:
        reply = worker.handle(json.loads(json.dumps(message)))  # as the worker receives it
        runtime.frame(reply)
    handled = time.process_time() - started
    print(f"  the worker's handling of the same {len(sent)} requests, in this process: {handled:.2f} s CPU "
          f"({1000 * handled / max(len(sent), 1):.2f} ms a crossing): the rest of a worker's CPU is its start-up "
          "and the pipes")


if __name__ == "__main__":
    main()
