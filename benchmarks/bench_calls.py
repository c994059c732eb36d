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

``--session N`` then grades N copies of the reference in one sandboxed session, as one
``grade-class`` process does (a worker forked from the zygote per submission), twice in the
same run: every test run as a test (``replay=False``: before ``grader.core.replay``), then
replayed (one ``batch`` crossing per exercise); and prints, for each, where a correct
submission's time goes: wall time, the trusted process's CPU, the
crossings to the worker and to the zygote (``usage``: the memory check after a student
function raised, ``fork``, ``kill``) and the wall time waited for each. On a loaded
machine the wait per crossing, not the CPU, is most of a submission's wall time.

Usage: python benchmarks/bench_calls.py [--labs] [--session N]
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

from grader.core.course import load_course  # noqa: E402
from grader.worker import client, runtime  # noqa: E402


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--labs", action="store_true", help="grade the labs too")
    parser.add_argument(
        "--session",
        type=int,
        default=0,
        metavar="N",
        help="also grade N copies in one sandboxed session (as grade-class) and break one down",
    )
    args = parser.parse_args()
    course = load_course(ROOT)
    functions = [e.function for e in course.exercises if args.labs or e.kind != "lab"]

    sent: list[dict] = []
    waited: collections.Counter = collections.Counter()
    send, receive = client.WorkerProcess.send, client.WorkerProcess._receive

    def counting(self, message, timeout):
        started = time.perf_counter()
        try:
            return send(self, message, timeout)
        finally:
            sent.append(as_request(message))
            waited[sent[-1].get("op")] += time.perf_counter() - started

    def waiting(self, deadline):  # a reply's wait counts for the request sent last
        started = time.perf_counter()
        try:
            return receive(self, deadline)
        finally:
            waited[sent[-1].get("op") if sent else "?"] += time.perf_counter() - started

    client.WorkerProcess.send, client.WorkerProcess._receive = counting, waiting
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
    client.WorkerProcess.send, client.WorkerProcess._receive = send, receive

    by_op = collections.Counter(m.get("op") for m in sent)
    inner = [
        r for m in sent for b in (m["batches"] if m.get("op") == "batches" else [m]) for r in b.get("requests", [b])
    ]
    by_function = collections.Counter(m.get("function") or m.get("name") for m in inner if m.get("op") != "import")
    calls = sum(m.get("count", 1) for m in inner if m.get("op") in ("call", "map"))
    print(
        f"one correct submission, {len(functions)} exercises{' (labs included)' if args.labs else ' (labs left out)'}:"
    )
    print(
        f"  crossings: {len(sent)} (" + ", ".join(f"{op} {n}" for op, n in by_op.most_common()) + f"); "
        f"calls of student functions: {calls}"
    )
    print("  wall time waited: " + ", ".join(f"{op} {s:.2f} s" for op, s in waited.most_common()))
    print("  most crossings: " + ", ".join(f"{f} {n}" for f, n in by_function.most_common(6)))
    print(f"  trusted process CPU for the whole grading (pytest session included): {trusted:.2f} s")

    worker = runtime.Worker(str(course.solutions_dir))
    started = time.process_time()
    for message in sent:
        reply = worker.handle(json.loads(json.dumps(message)))  # as the worker receives it
        runtime.frame(reply)
    handled = time.process_time() - started
    print(
        f"  the worker's handling of the same {len(sent)} requests, in this process: {handled:.2f} s CPU "
        f"({1000 * handled / max(len(sent), 1):.2f} ms a crossing): the rest of a worker's CPU is its start-up "
        "and the pipes"
    )

    if args.session:
        # Before and after grader.core.replay, in the same run: every test run as a test, then replayed.
        for replay in (False, True):
            session_breakdown(course, functions, args.session, replay)


def as_request(message) -> dict:
    """A request as sent: a replay's batch goes as a frame built once (8-byte length, then JSON)."""
    return json.loads(message[runtime.HEADER.size :]) if isinstance(message, bytes) else message


def session_breakdown(course, functions: list[str], count: int, replay: bool) -> None:
    """Grade ``count`` copies of the reference in one sandboxed session; per submission: where the time goes.
    ``replay``: with the reference's traces (grader.core.replay), else every test runs as a test."""
    from grader.core.fingerprint import run_fingerprint
    from grader.engine.driver import grade_here
    from grader.engine.parcel import Parcel
    from grader.sandbox import launcher as sandbox
    from grader.sandbox import sandbox_launcher

    stamps: list[tuple[float, float]] = []
    crossings: collections.Counter = collections.Counter()
    waited: collections.Counter = collections.Counter()
    send, receive, call = client.WorkerProcess.send, client.WorkerProcess._receive, sandbox._Zygote.call

    def counting(self, message, timeout):
        started = time.perf_counter()
        try:
            return send(self, message, timeout)
        finally:
            crossings["worker " + str(as_request(message).get("op"))] += 1
            waited["worker"] += time.perf_counter() - started

    def waiting(self, deadline):
        started = time.perf_counter()
        try:
            return receive(self, deadline)
        finally:
            waited["worker"] += time.perf_counter() - started

    def zygote_counting(self, message, *more, **options):
        started = time.perf_counter()
        try:
            return call(self, message, *more, **options)
        finally:
            crossings["zygote " + str(message.get("op"))] += 1
            waited["zygote"] += time.perf_counter() - started

    parcels = [Parcel.read(f"copy{i}", course.solutions_dir, only=functions) for i in range(count + 1)]
    launcher = sandbox_launcher(course, mode="require")
    launcher.start()
    seen: list[tuple[collections.Counter, collections.Counter]] = []

    def on_record(parcel, record):
        stamps.append((time.perf_counter(), time.process_time()))
        seen.append((collections.Counter(crossings), collections.Counter(waited)))

    client.WorkerProcess.send, client.WorkerProcess._receive, sandbox._Zygote.call = counting, waiting, zygote_counting
    try:
        with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
            records = grade_here(
                course,
                parcels,
                launcher=launcher,
                course_hash=run_fingerprint(course, functions),
                only=functions,
                on_record=on_record,
                replay=replay,
            )
    finally:
        client.WorkerProcess.send, client.WorkerProcess._receive, sandbox._Zygote.call = send, receive, call
        launcher.close()
    totals = {r.result.total for r in records.values()}
    n = len(stamps) - 1  # the first submission also pays the session's start: left out
    wall = (stamps[-1][0] - stamps[0][0]) / n
    cpu = (stamps[-1][1] - stamps[0][1]) / n
    kinds = seen[-1][0] - seen[0][0]
    waits = seen[-1][1] - seen[0][1]
    count_all = sum(kinds.values())
    print(
        f"a correct submission in one sandboxed session, {'replayed' if replay else 'every test run'} (mean of {n}, "
        f"the first left out; "
        f"load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} CPUs; totals {sorted(totals)}):"
    )
    print(
        f"  wall {wall:.2f} s, the trusted process's CPU {cpu:.2f} s; crossings {count_all / n:.0f} ("
        + ", ".join(f"{k} {v / n:.0f}" for k, v in kinds.most_common())
        + ")"
    )
    print(
        f"  waited for the worker {waits['worker'] / n:.2f} s ({1000 * waits['worker'] / max(1, sum(v for k, v in kinds.items() if k.startswith('worker'))):.2f} ms a crossing), "
        f"for the zygote {waits['zygote'] / n:.2f} s; the rest, {wall - (waits['worker'] + waits['zygote']) / n:.2f} s, is "
        "the trusted side's own work (pytest, the hidden tests, encoding and checking replies)"
    )


if __name__ == "__main__":
    main()
