"""A trusted grading process of a class run: ``python -m grader.classgrade.worker``.

It loads the course, starts one sandboxed zygote and runs one pytest session
(:func:`grader.classgrade.session.grade_stream`); the submissions come one at a
time from the coordinating ``grader grade-class`` process. Messages are JSON
lines on two pipes of their own, ``--request-fd`` and ``--reply-fd``: pytest
captures the standard streams (stdin included) while tests run, and stdout and
stderr go to a log file, so nothing printed can break the protocol.

    -> {"ready": true, "sandbox": "..."}       (after the zygote has started)
    -> {"want": true}                          (ready for the next submission)
    <- {"grade": ["alice", "/path/alice"]}  or  {"stop": true}
    -> {"result": {...record...}}
    -> {"failed": ["alice", "reason"]}         (this submission cannot be graded at all)
    -> {"error": "..."}                        (the worker cannot go on)

A worker that could not start a student's worker exits with status 3 and no
message: the coordinator hands that student to a fresh process.
"""

from __future__ import annotations

import argparse
import ctypes
import datetime
import json
import os
import signal
import sys
import time
from pathlib import Path

from grader.classgrade.fingerprint import submission_fingerprint
from grader.classgrade.session import grade_stream
from grader.course import Course, load_course
from grader.errors import GraderError
from grader.grade.results import SubmissionResult
from grader.sandbox import SandboxLauncher, WorkerExit, sandbox_launcher
from grader.worker.client import WorkerStartError, describe_exit

RECORD_FORMAT = 1
INFRASTRUCTURE_EXIT = 3


def limit_events(result: SubmissionResult, exits: list[WorkerExit], launcher) -> list[dict]:
    """The limits a submission ran into, for the instructor: time, CPU, memory, output, crashes."""
    events = []
    for name, f in result.functions.items():
        if f.error_kind in ("time limit", "crash", "reply limit"):
            events.append({"function": name, "kind": f.error_kind, "detail": f.error})
    limits = launcher.limits
    for exit in exits:
        # Only what the kernel reported of the worker counts; whatever the student's code
        # raised or printed ("MemoryError" included) proves nothing.
        if limits.near_memory_limit(exit.peak_memory):
            events.append({"function": exit.memory_function, "kind": "memory limit",
                           "detail": f"peak memory {exit.peak_memory / 2**20:.0f} MiB of the "
                                     f"{limits.memory_mb:g} MiB address space limit"})
        if exit.code is not None and exit.code < 0 and -exit.code == signal.SIGXCPU:
            events.append({"function": None, "kind": "CPU limit", "detail": describe_exit(exit.code)})
        if exit.output_bytes >= int(limits.file_size_mb * 1024 * 1024):
            events.append({"function": None, "kind": "output limit",
                           "detail": f"printed {exit.output_bytes / 2**20:.0f} MB (cap {limits.file_size_mb:g} MB)"})
        elif exit.output_bytes > limits.output_bytes:
            events.append({"function": None, "kind": "output truncated",
                           "detail": f"printed {exit.output_bytes / 1024:.0f} KB, kept {limits.output_kb:g} KB"})
    return events


def make_record(course: Course, student: str, original: Path, result: SubmissionResult, exits: list[WorkerExit],
                launcher, course_hash: str, submission_hash: str) -> dict:
    assignments = {}
    for a in course.assignments:
        got = [f for f in result.functions.values() if f.assignment == a.id]
        assignments[a.id] = {"score": round(sum(f.score for f in got), 6), "max": round(sum(f.max for f in got), 6)}
    keep = launcher.limits.output_bytes
    output = "".join(e.output for e in exits)[:keep]
    return {
        "format": RECORD_FORMAT,
        "student": student,
        "submission": str(original),
        "submission_hash": submission_hash,
        "course_hash": course_hash,
        "course": course.id,
        "graded_at": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"),
        "elapsed": round(result.elapsed, 3),
        "sandbox": launcher.describe(),
        "assignments": assignments,
        "result": result.to_json(),
        "limits": limit_events(result, exits, launcher),
        "workers": [{"exit": e.code, "ended": describe_exit(e.code), "output_bytes": e.output_bytes} for e in exits],
        "output": output,
    }


def _die_with_parent() -> None:
    try:
        ctypes.CDLL(None, use_errno=True).prctl(1, signal.SIGKILL, 0, 0, 0)  # PR_SET_PDEATHSIG
    except (OSError, AttributeError):  # pragma: no cover - not Linux
        pass


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="grader.classgrade.worker", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--course", required=True)
    parser.add_argument("--course-hash", required=True)
    parser.add_argument("--sandbox", choices=("auto", "require", "off"), default="auto")
    parser.add_argument("--only", action="append", default=None)
    parser.add_argument("--request-fd", type=int, required=True)
    parser.add_argument("--reply-fd", type=int, required=True)
    args = parser.parse_args(argv)
    _die_with_parent()
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # the coordinator decides when to stop
    replies = os.fdopen(args.reply_fd, "w", buffering=1, encoding="utf-8")
    requests = os.fdopen(args.request_fd, "r", encoding="utf-8")

    def tell(message: dict) -> None:
        replies.write(json.dumps(message) + "\n")
        replies.flush()

    try:
        course = load_course(args.course)
        launcher: SandboxLauncher = sandbox_launcher(course, mode=args.sandbox,
                                                     warn=lambda text: print(text, file=sys.stderr))
    except GraderError as exc:
        tell({"error": str(exc)})
        return 2
    with launcher:
        try:
            launcher.start()
        except GraderError as exc:
            tell({"error": str(exc)})
            return 2
        tell({"ready": True, "sandbox": launcher.describe(), "sandboxed": launcher.sandboxed, "pid": os.getpid()})
        hashes: dict[str, str] = {}

        def feed():
            while True:
                tell({"want": True})
                line = requests.readline()
                if not line:
                    return None
                message = json.loads(line)
                if message.get("stop"):
                    return None
                student, path = message["grade"]
                try:  # fingerprint what is graded, at the moment it is staged
                    hashes[student] = submission_fingerprint(Path(path))
                except OSError as exc:
                    fail(student, f"could not read the submission: {exc}")
                    continue
                print(f"{time.strftime('%H:%M:%S')} grading {student}", flush=True)
                return student, Path(path)

        def fail(student: str, reason: str) -> None:
            hashes.pop(student, None)
            tell({"failed": [student, reason]})

        def sink(student: str, original: Path, result: SubmissionResult) -> None:
            # One submission at a time in this process: every worker that ended since
            # the last result belonged to this one.
            exits = [e for key in list(launcher.history) for e in launcher.take_history(key)]
            record = make_record(course, student, original, result, exits, launcher, args.course_hash,
                                 hashes.pop(student))
            tell({"result": record})

        try:
            grade_stream(course, feed, sink, fail, launcher=launcher, only=args.only)
        except WorkerStartError as exc:
            print(f"could not start a worker, giving the submission back: {exc}", file=sys.stderr, flush=True)
            return INFRASTRUCTURE_EXIT
        except GraderError as exc:
            tell({"error": str(exc)})
            return 2
    tell({"done": True})
    return 0


if __name__ == "__main__":
    sys.exit(main())
