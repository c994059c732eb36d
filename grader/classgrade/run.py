"""Grade a whole class: N trusted processes, each with one sandboxed zygote and one pytest session.

The coordinator (this module) decides what needs grading, hands submissions out
one at a time to whichever process is free, and writes each result the moment it
arrives. Grades never depend on N or on the order: every submission gets a fresh
worker, and the property tests are derandomized.
"""

from __future__ import annotations

import datetime
import fcntl
import hashlib
import json
import os
import selectors
import subprocess
import sys
import time
from collections import deque
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable

from grader.classgrade.fingerprint import course_fingerprint, submission_fingerprint
from grader.classgrade.store import SAFE_ID, ResultStore
from grader.course import Course
from grader.errors import GraderError
from grader.untrusted import shown

SKIP_NAMES = {"__pycache__", "__MACOSX"}
MAX_ATTEMPTS = 2
WORKER_START_TIMEOUT = 300.0


def discover_submissions(directory: Path, skipped: dict[str, str] | None = None) -> dict[str, Path]:
    """``{student: path}``: each subdirectory, or .py file, of ``directory`` is one submission.

    An entry that cannot be graded (a symbolic link, which is never followed; a name that
    is not a usable student id; a second entry for one student) raises, or, when
    ``skipped`` is given, is recorded there (printable name -> reason) and left out.
    """
    directory = Path(directory)
    if not directory.is_dir():
        raise GraderError(f"not a directory of submissions: {directory}")
    found: dict[str, Path] = {}

    def skip(entry: Path, reason: str) -> None:
        if skipped is None:
            raise GraderError(f"{shown(entry)}: {reason}")
        skipped[shown(entry.name)] = reason

    for entry in sorted(directory.iterdir()):
        if entry.name.startswith(".") or entry.name in SKIP_NAMES:
            continue
        if entry.is_symlink():
            if entry.is_dir() or entry.suffix == ".py":
                skip(entry, "a symbolic link; links are never followed (hand in the folder or file itself)")
            continue
        if entry.is_dir():
            student = entry.name
        elif entry.is_file() and entry.suffix == ".py":
            student = entry.stem
        else:
            continue
        if not SAFE_ID.match(student):
            skip(entry, "a student id may hold letters, digits and . _ @ + - only (at most 100)")
        elif student in found or (skipped is not None and student in skipped):
            # Two entries for one student: grading either would be a guess.
            first = found.pop(student, None)
            skip(Path(student), f"two submissions for {student!r} ({first.name if first else 'another'} and "
                                f"{shown(entry.name)}); neither is graded")
        else:
            found[student] = directory.resolve() / entry.name
    if not found and not skipped:
        raise GraderError(f"{directory} holds no submissions (one subdirectory or .py file per student)")
    return found


@dataclass
class ClassRun:
    """What a class run did."""

    students: dict[str, Path]
    up_to_date: list[str] = field(default_factory=list)
    graded: list[str] = field(default_factory=list)
    failed: dict[str, str] = field(default_factory=dict)
    sandbox: str = ""
    wall_time: float = 0.0
    interrupted: bool = False


class _Process:
    """One trusted grading process, as the coordinator sees it."""

    def __init__(self, index: int, course: Course, course_hash: str, mode: str, log_dir: Path,
                 only: list[str] | None = None):
        self.index = index
        read_fd, write_fd = os.pipe()
        request_r, request_w = os.pipe()
        log_dir.mkdir(parents=True, exist_ok=True)
        self.log_path = log_dir / f"worker-{index}.log"
        self.log = open(self.log_path, "ab")
        argv = [sys.executable, "-m", "grader.classgrade.worker", "--course", str(course.root),
                "--course-hash", course_hash, "--sandbox", mode, "--request-fd", str(request_r),
                "--reply-fd", str(write_fd)]
        for function in only or []:
            argv += ["--only", function]
        env = dict(os.environ, PYTHONUNBUFFERED="1")
        try:
            self.process = subprocess.Popen(argv, stdin=subprocess.DEVNULL, stdout=self.log, stderr=subprocess.STDOUT,
                                            pass_fds=(write_fd, request_r), env=env, start_new_session=True)
        except OSError:
            os.close(request_w)
            os.close(read_fd)
            self.log.close()
            raise
        finally:
            os.close(write_fd)
            os.close(request_r)
        self.requests = os.fdopen(request_w, "wb", buffering=0)
        self.replies = os.fdopen(read_fd, "rb", buffering=0)
        self.buffer = b""
        self.current: str | None = None
        self.ready = False
        self.finished = False

    def send(self, message: dict) -> None:
        try:
            self.requests.write((json.dumps(message) + "\n").encode("utf-8"))
        except (BrokenPipeError, OSError):
            pass  # it died; its end of stream tells the coordinator

    def messages(self) -> list[dict] | None:
        """Complete messages available now; None at end of stream."""
        chunk = self.replies.read(1 << 16)
        if not chunk:
            return None
        self.buffer += chunk
        lines = self.buffer.split(b"\n")
        self.buffer = lines.pop()
        return [json.loads(line) for line in lines if line.strip()]

    def log_tail(self, n: int = 1500) -> str:
        try:
            return self.log_path.read_bytes()[-n:].decode("utf-8", "replace").strip()
        except OSError:
            return ""

    def stop(self) -> None:
        if self.process.poll() is None:
            try:
                self.requests.close()
            except OSError:
                pass
            try:
                self.process.wait(timeout=5)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
        self.replies.close()
        self.log.close()

    def kill(self) -> None:
        if self.process.poll() is None:
            self.process.kill()
            self.process.wait()
        try:
            self.requests.close()
        except OSError:
            pass
        self.replies.close()
        self.log.close()


def plan(students: dict[str, Path], store: ResultStore, course_hash: str,
         force: bool = False) -> tuple[list[str], list[str]]:
    """(students to grade, students whose stored grade is current)."""
    todo, current = [], []
    for student, path in students.items():
        try:
            fingerprint = submission_fingerprint(path)
        except OSError:  # unreadable now: grading will say so for this student alone
            fingerprint = None
        if not force and fingerprint is not None and store.is_current(student, fingerprint, course_hash):
            current.append(student)
        else:
            todo.append(student)
    return todo, current


def lock_results(store: ResultStore):
    """An exclusive lock on the results directory for this run (released when the file closes)."""
    store.root.mkdir(parents=True, exist_ok=True)
    handle = open(store.root / ".lock", "w")
    try:
        fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError:
        handle.close()
        raise GraderError(f"another grading run is writing to {store.root}; wait for it or choose another --out")
    return handle


def run_fingerprint(course: Course, only: list[str] | None = None) -> str:
    """The course fingerprint results are stored under; with ``only``, the functions graded are part
    of it, so a partial grade never passes for a complete one (or for another part)."""
    course_hash = course_fingerprint(course)
    if only:
        only = [f for f in course.functions if f in only]
        course_hash = hashlib.sha256(f"{course_hash} only {' '.join(only)}".encode()).hexdigest()
    return course_hash


def grade_class(course: Course, submissions_dir: Path, out: Path, *, jobs: int = 1, mode: str = "auto",
                force: bool = False, only: list[str] | None = None,
                on_event: Callable[[str, dict], None] | None = None,
                students: dict[str, Path] | None = None) -> ClassRun:
    """Grade every submission of ``submissions_dir`` that has no current result in ``out``.

    ``only`` restricts grading to these functions (the results then hold only them).
    ``students`` (``{student: submission}``) grades exactly these instead of discovering
    the submissions of ``submissions_dir`` (``grader autograde`` grades its extractions).

    ``on_event(kind, data)`` follows the run: ``("plan", {...})``, ``("started", {"sandbox"})``,
    ``("graded", record)``, ``("failed", {...})``.
    """
    started = time.monotonic()
    notify = on_event or (lambda kind, data: None)
    submissions_dir = Path(submissions_dir).resolve()
    skipped: dict[str, str] = {}  # entries that are not submissions one can grade: reported, not fatal
    students = discover_submissions(submissions_dir, skipped) if students is None else dict(students)
    store = ResultStore(out)
    lock = lock_results(store)  # before reading what an earlier run left there
    previous = store.manifest()
    if previous and previous.get("submissions_dir") not in (None, str(submissions_dir)):
        raise GraderError(f"{out} holds the results of {previous['submissions_dir']}, not of {submissions_dir}; "
                          "choose another --out")
    if only:
        unknown = [f for f in only if f not in course.functions]
        if unknown:
            raise GraderError(f"not a function of this course: {', '.join(unknown)}")
        only = [f for f in course.functions if f in only]
    course_hash = run_fingerprint(course, only)
    todo, current = plan(students, store, course_hash, force)
    run = ClassRun(students=students, up_to_date=current, failed=dict(skipped))
    for entry, reason in skipped.items():
        notify("failed", {"student": entry, "reason": reason})
    manifest = {
        "format": 1, "course": course.id, "course_title": course.title, "module": course.module_number,
        "module_title": course.module_title, "course_root": str(course.root), "course_hash": course_hash,
        "submissions_dir": str(submissions_dir), "students": sorted(students), "jobs": jobs,
        "started_at": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"),
        "finished_at": None, "wall_time": None, "graded_this_run": 0, "only": only,
        "assignments": [{"id": a.id, "title": a.title, "functions": [e.function for e in a.exercises]}
                        for a in course.assignments],
    }
    store.save_manifest(manifest)
    notify("plan", {"total": len(students), "todo": len(todo), "current": len(current)})
    try:
        if todo:
            _run_processes(course, students, todo, store, course_hash, max(1, min(jobs, len(todo))), mode, run,
                           notify, only)
    except KeyboardInterrupt:
        run.interrupted = True
    finally:
        run.wall_time = time.monotonic() - started
        records = store.all_records(sorted(students))
        store.write_summary(course, records)
        manifest.update(finished_at=None if run.interrupted else
                        datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"),
                        wall_time=round(run.wall_time, 3), graded_this_run=len(run.graded), sandbox=run.sandbox,
                        interrupted=run.interrupted, failed=run.failed)
        store.save_manifest(manifest)
        lock.close()
    return run


def _run_processes(course, students, todo, store, course_hash, jobs, mode, run, notify, only) -> None:
    queue = deque(todo)
    attempts: dict[str, int] = {}
    selector = selectors.DefaultSelector()
    processes: list[_Process] = []
    restarts = 0

    def launch(index: int) -> _Process:
        process = _Process(index, course, course_hash, mode, store.logs_dir, only)
        selector.register(process.replies, selectors.EVENT_READ, process)
        processes.append(process)
        return process

    def retire(process: _Process) -> None:
        selector.unregister(process.replies)
        processes.remove(process)

    for i in range(jobs):
        launch(i)
    last_heard = time.monotonic()
    try:
        while processes:
            events = selector.select(timeout=5.0)
            if not events and time.monotonic() - last_heard > WORKER_START_TIMEOUT and not any(
                    p.ready for p in processes):
                raise GraderError("the grading processes did not start:\n" + processes[0].log_tail())
            for key, _ in events:
                process: _Process = key.data
                last_heard = time.monotonic()
                messages = process.messages()
                if messages is None:  # the process ended
                    retire(process)
                    code = process.process.wait()
                    if not process.finished:
                        lost = process.current
                        if lost is not None:
                            attempts[lost] = attempts.get(lost, 0) + 1
                            if attempts[lost] < MAX_ATTEMPTS:
                                queue.appendleft(lost)
                            else:
                                run.failed[lost] = (f"the grading process died twice on it (exit code {code}); "
                                                    f"see {process.log_path}")
                                notify("failed", {"student": lost, "reason": run.failed[lost]})
                        if queue and restarts < 2 * jobs:
                            restarts += 1
                            launch(max(p.index for p in processes) + 1 if processes else process.index + 1)
                        elif queue and not processes:
                            raise GraderError(f"the grading processes keep dying; last log ({process.log_path}):\n"
                                              + process.log_tail())
                    process.kill()
                    continue
                for message in messages:
                    if "error" in message:
                        raise GraderError(message["error"])
                    if message.get("ready"):
                        process.ready = True
                        if not run.sandbox:
                            run.sandbox = message.get("sandbox", "")
                            notify("started", {"sandbox": run.sandbox, "sandboxed": message.get("sandboxed")})
                    elif message.get("want"):
                        if queue:
                            student = queue.popleft()
                            process.current = student
                            process.send({"grade": [student, str(students[student])]})
                        else:
                            process.current = None
                            process.send({"stop": True})
                    elif "failed" in message:
                        student, reason = message["failed"]
                        run.failed[student] = reason
                        process.current = None
                        notify("failed", {"student": student, "reason": reason})
                    elif "result" in message:
                        record = message["result"]
                        store.save(record)
                        run.graded.append(record["student"])
                        process.current = None
                        notify("graded", record)
                    elif message.get("done"):
                        process.finished = True
    finally:
        for process in list(processes):
            process.kill()
        selector.close()
