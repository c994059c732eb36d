"""Grading sessions on this machine: N trusted processes, each hosting one :class:`HostedSession`.

``python -m grader.engine.local`` is one such process. It loads the course, checks its
fingerprint, starts one sandboxed zygote and one pytest session, and grades the
submissions the coordinator (:class:`LocalPool`, in ``grader grade-class`` or ``grader
autograde``) sends it, one at a time, as their files' bytes. Messages are JSON lines on two
pipes of their own, ``--request-fd`` and ``--reply-fd``: stdout and stderr go to a log file,
so nothing printed can break the protocol.

    -> {"ready": true, "sandbox": "...", "sandboxed": bool, "grader": "..."}
    -> {"want": true}                          (ready for the next submission)
    <- {"grade": {...parcel...}}  or  {"stop": true}
    -> {"outcome": {...}}                      (a record, or why there is none)
    -> {"error": "..."}                        (this process cannot grade at all)
"""

from __future__ import annotations

import argparse
import json
import os
import selectors
import signal
import socket
import subprocess
import sys
import time
import traceback
from pathlib import Path

from grader.core import cache
from grader.core.course import Course, load_course
from grader.core.fingerprint import check_course
from grader.engine.backend import Feed, Outcome
from grader.engine.driver import HostedSession
from grader.engine.options import GradingOptions
from grader.engine.parcel import Parcel
from grader.engine.pipes import MessageReader, teller
from grader.errors import GraderError
from grader.sandbox.reaper import die_with_parent

START_TIMEOUT = 300.0
STOP_TIMEOUT = 30.0  # seconds for a kept process to end its session when the pool closes


class _Process:
    """One trusted grading process, as the coordinator sees it."""

    def __init__(
        self,
        index: int,
        course: Course,
        course_hash: str,
        options: GradingOptions,
        log_dir: Path,
        only: list[str] | None = None,
    ):
        self.name = f"{socket.gethostname()}/local-{index}"
        read_fd, write_fd = os.pipe()
        request_r, request_w = os.pipe()
        log_dir.mkdir(parents=True, exist_ok=True)
        self.log_path = log_dir / f"worker-{index}.log"
        self.log = open(self.log_path, "ab")
        argv = [
            sys.executable,
            "-m",
            "grader.engine.local",
            "--course",
            str(course.root),
            "--course-hash",
            course_hash,
            *settings_argv(options),
            "--request-fd",
            str(request_r),
            "--reply-fd",
            str(write_fd),
            "--name",
            self.name,
        ]
        for function in only or []:
            argv += ["--only", function]
        env = dict(os.environ, PYTHONUNBUFFERED="1")
        try:
            self.process = subprocess.Popen(
                argv,
                stdin=subprocess.DEVNULL,
                stdout=self.log,
                stderr=subprocess.STDOUT,
                pass_fds=(write_fd, request_r),
                env=env,
                start_new_session=True,
            )
        except OSError:
            os.close(request_w)
            os.close(read_fd)
            self.log.close()
            raise
        finally:
            os.close(write_fd)
            os.close(request_r)
        self.requests = os.fdopen(request_w, "wb", buffering=0)
        self.replies = MessageReader(read_fd, chunk=1 << 20)
        self.current: str | None = None
        self.ready = False
        self.finished = False
        self.sandbox, self.sandboxed = "", None

    def send(self, message: dict) -> None:
        try:
            self.requests.write((json.dumps(message) + "\n").encode("utf-8"))
        except (BrokenPipeError, OSError):
            pass  # it died; its end of stream tells the coordinator

    def log_tail(self, n: int = 1500) -> str:
        try:
            return self.log_path.read_bytes()[-n:].decode("utf-8", "replace").strip()
        except OSError:
            return ""

    def kill(self) -> None:
        if self.process.poll() is None:
            self.process.kill()
            self.process.wait()
        for stream in (self.requests, self.replies, self.log):
            try:
                stream.close()
            except OSError:
                pass


def settings_argv(options: GradingOptions) -> list[str]:
    """The command line of a grading process for ``options`` (each setting passed on, never through the
    environment): its sandbox, cgroups, bubblewrap, replay and cache directory (this process's unless
    ``options.cache`` says otherwise)."""
    directory = options.cache if options.cache is not None else cache.current().directory
    argv = ["--sandbox", options.sandbox, "--cgroups", options.cgroups, "--cache", str(directory or 0)]
    return argv + ["--no-bubblewrap"] * (not options.bubblewrap) + ["--no-replay"] * (not options.replay)


class LocalPool:
    """``jobs`` trusted grading processes on this machine (a process that dies is replaced).

    Each :meth:`run` grades what its dispatcher hands out. Used as a context manager, the pool
    keeps its processes between runs (one pytest session each for several classes, e.g. the
    assignments of one ``grader autograde``): their sessions then grade any of ``only``'s
    functions, each submission on its own (:attr:`~grader.engine.parcel.Parcel.only`), and
    :meth:`close` ends them. Otherwise they end with the run.
    """

    def __init__(
        self,
        course: Course,
        *,
        jobs: int,
        course_hash: str,
        only: list[str] | None,
        log_dir: Path,
        options: GradingOptions = GradingOptions(),
    ):
        self.course = course
        self.jobs = max(1, jobs)
        self.options = options
        self.course_hash = course_hash
        self.only = only
        self.log_dir = log_dir
        self.where = f"{self.jobs} local process{'es' if self.jobs > 1 else ''}"
        self.keep = False
        self.processes: list[_Process] = []
        self._restarts = 0  # processes started again in this run
        self.idle: list[_Process] = []  # waiting for a submission, between two runs
        self.selector = selectors.DefaultSelector()
        self.counter = iter(range(1 << 30))

    def __enter__(self) -> "LocalPool":
        self.keep = True
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    def close(self) -> None:
        """End the processes: those waiting for a submission stop as they would at the end of a run."""
        if self.selector is None:
            return
        for process in self.idle:
            process.send({"stop": True})
        for process in self.processes:
            if process in self.idle:
                try:
                    process.process.wait(timeout=STOP_TIMEOUT)
                except subprocess.TimeoutExpired:
                    pass
            process.kill()
        self.processes, self.idle = [], []
        self.selector.close()
        self.selector = None

    def prestart(self) -> None:
        """Start the processes now (a kept pool): their start (Python, the tests' collection, the
        sandbox: about a second) overlaps with the caller's own work before the first run."""
        if self.keep and self.selector is not None:
            for _ in range(self.jobs - len(self.processes)):
                self._launch()

    def pids(self) -> set[int]:
        """The processes kept between runs (the grader's own, never a student's stray)."""
        return {process.process.pid for process in self.processes}

    def _launch(self) -> _Process:
        process = _Process(next(self.counter), self.course, self.course_hash, self.options, self.log_dir, self.only)
        self.selector.register(process.replies, selectors.EVENT_READ, process)
        self.processes.append(process)
        return process

    def run(self, dispatcher: Feed) -> None:
        if self.selector is None:  # closed by an earlier run that failed: start afresh
            self.selector = selectors.DefaultSelector()
        processes = self.processes
        self._restarts = 0
        for process in processes:  # kept from an earlier run: ready, and waiting (else it says so when it is)
            if process.ready:
                dispatcher.listener.started(process.name, process.sandbox, process.sandboxed)
        for process in list(self.idle):
            self._serve(process, dispatcher)
        for _ in range(max(0, min(self.jobs - len(processes), dispatcher.waiting))):
            self._launch()
        last_heard = time.monotonic()
        done = False
        try:
            while processes and not (self.keep and dispatcher.finished and len(self.idle) == len(processes)):
                events = self.selector.select(timeout=5.0)
                if not events and time.monotonic() - last_heard > START_TIMEOUT and not any(p.ready for p in processes):
                    raise GraderError("the grading processes did not start:\n" + processes[0].log_tail())
                for key, _ in events:
                    process: _Process = key.data
                    last_heard = time.monotonic()
                    messages = process.replies.messages()
                    if messages is None:  # the process ended
                        self._ended(process, dispatcher)
                        continue
                    for message in messages:
                        self._handle(process, message, dispatcher)
            done = True
        finally:
            if not (self.keep and done):
                self.close()

    def _ended(self, process: _Process, dispatcher: Feed) -> None:
        """``process`` ended: what it was grading is retried, and it is replaced while there is work left
        (a few times; then the run stops, with its log)."""
        self.selector.unregister(process.replies)
        self.processes.remove(process)
        if process in self.idle:
            self.idle.remove(process)
        code = process.process.wait()
        if not process.finished:
            dispatcher.session_lost(
                process.name,
                f"the grading process ended (exit code {code}); see {process.log_path.name} in the logs",
            )
            if dispatcher.waiting and self._restarts < 2 * self.jobs:
                self._restarts += 1
                self._launch()
            elif dispatcher.waiting and not self.processes:
                raise GraderError(
                    f"the grading processes keep dying; last log ({process.log_path}):\n" + process.log_tail()
                )
        process.kill()

    def _serve(self, process: _Process, dispatcher: Feed) -> None:
        """A submission for ``process``; with none left, it stops, or waits for the next run (a kept pool)."""
        parcel = dispatcher.next(process.name)
        process.current = parcel.student if parcel is not None else None
        if parcel is not None:
            if process in self.idle:
                self.idle.remove(process)
            process.send({"grade": parcel.to_json()})
        elif self.keep:
            if process not in self.idle:
                self.idle.append(process)
        else:
            process.send({"stop": True})

    def _handle(self, process: _Process, message: dict, dispatcher: Feed) -> None:
        if "error" in message:
            raise GraderError(message["error"])
        if message.get("ready"):
            process.ready = True
            process.sandbox, process.sandboxed = message.get("sandbox", ""), message.get("sandboxed")
            dispatcher.listener.started(process.name, process.sandbox, process.sandboxed)
        elif message.get("want"):
            self._serve(process, dispatcher)
        elif "outcome" in message:
            student, process.current = process.current, None
            dispatcher.outcome(student, Outcome.from_json(message["outcome"]))
        elif message.get("done"):
            process.finished = True


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="grader.engine.local", description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--course", required=True)
    parser.add_argument("--course-hash", required=True)
    parser.add_argument("--sandbox", choices=("auto", "require", "off"), default="auto")
    parser.add_argument("--cgroups", choices=("auto", "require", "off"), default="auto")
    parser.add_argument("--no-bubblewrap", action="store_true")
    parser.add_argument("--no-replay", action="store_true")
    parser.add_argument("--cache", metavar="DIR", help="the grader's cache directory (0: none)")
    parser.add_argument("--only", action="append", default=None)
    parser.add_argument("--request-fd", type=int, required=True)
    parser.add_argument("--reply-fd", type=int, required=True)
    parser.add_argument("--name", default=socket.gethostname())
    args = parser.parse_args(argv)
    die_with_parent()
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # the coordinator decides when to stop
    tell = teller(os.fdopen(args.reply_fd, "w", buffering=1, encoding="utf-8"))
    requests = os.fdopen(args.request_fd, "r", encoding="utf-8")
    # The session's pytest thread redirects sys.stdout and sys.stderr (for the whole process) to a
    # sink for as long as it runs: this process's log is the file behind the real ones.
    log = sys.__stdout__

    options = GradingOptions(
        sandbox=args.sandbox, cgroups=args.cgroups, bubblewrap=not args.no_bubblewrap, replay=not args.no_replay
    )
    if args.cache is not None:
        cache.configure(None if args.cache == "0" else Path(args.cache))
    try:
        course = load_course(args.course)
        check_course(course, args.only, args.course_hash, where=args.name)
        session = HostedSession(
            course,
            options=options,
            course_hash=args.course_hash,
            only=args.only,
            grader=args.name,
            warn=lambda text: print(text, file=log, flush=True),
        )
        session.start()
    except GraderError as exc:
        tell({"error": str(exc)})
        return 2
    tell({"ready": True, "sandbox": session.sandbox, "sandboxed": session.sandboxed, "grader": args.name})
    try:
        while True:
            tell({"want": True})
            line = requests.readline()
            if not line:
                break
            message = json.loads(line)
            if message.get("stop"):
                break
            parcel = Parcel.from_json(message["grade"])
            print(f"{time.strftime('%H:%M:%S')} grading {parcel.student}", file=log, flush=True)
            tell({"outcome": session.grade(parcel).to_json()})
    except BaseException:
        traceback.print_exc(file=log)
        raise
    finally:
        session.close()
    tell({"done": True})
    return 0


if __name__ == "__main__":
    sys.exit(main())
