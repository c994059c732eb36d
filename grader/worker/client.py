"""The trusted side of the boundary: start, talk to and kill a worker process.

A worker runs ``runtime.py`` on one submission in its own process group. Requests
and replies travel over two private pipes as plain data; the student's own
stdout/stderr go to a capture file. Every wait has a deadline, and on a timeout or
a crash the whole process group is killed.

Two kinds of launcher (:class:`Launcher`) start workers:

- :class:`LocalLauncher` starts a new Python process per worker, no sandbox (``grader
  check`` on the student's own machine);
- :class:`grader.sandbox.SandboxLauncher` forks the worker from a zygote that has
  numpy imported, inside the sandbox, and kills it (and all it started) after.
"""

from __future__ import annotations

import os
import select
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import BinaryIO, Protocol

from grader.errors import GraderError
from grader.worker import runtime
from grader.worker.replies import DEFAULT_REPLY_KB, ReplyRejected, ReplyTooLarge, parse_reply

RUNTIME_PATH = Path(runtime.__file__).resolve()
STARTUP_TIMEOUT = 60.0
OUTPUT_LIMIT = 64 * 1024


class WorkerTimeout(Exception):
    """The worker did not answer before the deadline."""


class WorkerStartError(GraderError):
    """A worker could not be started: the grader's trouble, never the student's.

    Student code only runs after the worker has said it is ready, so no grade may be
    recorded for a submission whose worker failed to start.
    """


class WorkerDied(Exception):
    """The worker process ended (or broke the protocol) while we waited for it."""

    def __init__(self, message: str, returncode: int | None = None):
        super().__init__(message)
        self.returncode = returncode


class WorkerHandle(Protocol):
    """A started worker, as its launcher hands it over: its two pipes, its output file, how it ends."""

    request_w: int
    response_r: int
    output: BinaryIO

    @property
    def alive(self) -> bool: ...

    def returncode(self, wait: float = 1.0) -> int | None:
        """Its exit code once it has ended (waits up to ``wait`` seconds)."""

    def observe_memory(self, function: str | None) -> None:
        """After ``function`` failed: did the worker run into its memory limit (the kernel's figures)?"""

    def kill(self, output_limit: int) -> object:
        """Kill it and everything it started; read at most ``output_limit`` bytes of its output."""


class Launcher(Protocol):
    """What starts a submission's workers: :class:`LocalLauncher` here, or the sandbox's
    (:class:`grader.sandbox.SandboxLauncher`). Every user of a launcher reads it through these."""

    name: str

    @property
    def sandboxed(self) -> bool: ...

    @property
    def reply_bytes(self) -> int:
        """The longest reply accepted from a worker."""

    @property
    def output_bytes(self) -> int:
        """How much of a worker's own output (its prints) is kept."""

    def spawn(self, submission: Path) -> WorkerHandle:
        """A fresh worker for ``submission`` (a staged directory), ready to say it is ready."""

    def describe(self) -> str:
        """How student code is confined, in a line (for records and reports)."""

    def take_exits(self) -> list:
        """How the workers that ended since the last call ended (and forget them)."""


class LocalLauncher:
    """Start the worker as a plain child process (no sandbox: trusted code only).

    The sandboxing launcher forks the same runtime from a zygote instead; see ``grader.sandbox``.
    """

    name = "local"
    sandboxed = False

    def __init__(self, reply_bytes: int = DEFAULT_REPLY_KB * 1024, output_bytes: int = OUTPUT_LIMIT):
        self.reply_bytes = reply_bytes
        self.output_bytes = output_bytes

    def describe(self) -> str:
        return "no sandbox (trusted code only)"

    def take_exits(self) -> list:
        return []

    def spawn(self, submission: Path) -> LocalWorker:
        scratch = tempfile.TemporaryDirectory(prefix="grader-worker-")
        request_r, request_w = os.pipe()
        response_r, response_w = os.pipe()
        output = tempfile.TemporaryFile(prefix="grader-output-")
        argv = [
            sys.executable,
            *interpreter_flags(),
            str(RUNTIME_PATH),
            str(submission),
            str(request_r),
            str(response_w),
            str(self.reply_bytes),
        ]
        env = dict(base_environment(), HOME=scratch.name, TMPDIR=scratch.name)
        try:
            process = subprocess.Popen(
                argv,
                env=env,
                cwd=scratch.name,
                pass_fds=(request_r, response_w),
                stdin=subprocess.DEVNULL,
                stdout=output,
                stderr=subprocess.STDOUT,
                start_new_session=True,
            )
        except OSError:
            for fd in (request_w, response_r):
                os.close(fd)
            output.close()
            scratch.cleanup()
            raise
        finally:
            os.close(request_r)
            os.close(response_w)
        return LocalWorker(process, request_w, response_r, output, scratch)


class LocalWorker:
    """A worker started by :class:`LocalLauncher`: a child process in a process group of its own."""

    def __init__(self, process: subprocess.Popen, request_w: int, response_r: int, output, scratch):
        self.process = process
        self.request_w = request_w
        self.response_r = response_r
        self.output = output
        self.scratch = scratch

    @property
    def alive(self) -> bool:
        return self.process.poll() is None

    def returncode(self, wait: float = 1.0) -> int | None:
        try:
            return self.process.wait(timeout=wait)
        except subprocess.TimeoutExpired:
            return None

    def observe_memory(self, function: str | None) -> None:
        """Nothing measures a plain child's memory."""

    def kill(self, output_limit: int) -> None:
        try:
            os.killpg(self.process.pid, signal.SIGKILL)
        except (ProcessLookupError, PermissionError):
            pass
        try:
            self.process.wait(timeout=10)
        except subprocess.TimeoutExpired:  # pragma: no cover - SIGKILL is not ignorable
            pass
        self.scratch.cleanup()


def base_environment() -> dict[str, str]:
    """Every worker's environment: one BLAS thread, fixed hashing, no display."""
    env = {
        "PATH": "/usr/local/bin:/usr/bin:/bin",
        "LANG": "C.UTF-8",
        "PYTHONHASHSEED": "0",
        "PYTHONDONTWRITEBYTECODE": "1",
        "MPLBACKEND": "Agg",
    }
    for var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
        env[var] = "1"
    return env


def interpreter_flags() -> list[str]:
    # Not -I: that would also ignore PYTHONHASHSEED, and set iteration order must be
    # the same on every run for grades to be. The environment is ours entirely, so
    # -s (no user site) and -P (no script directory on sys.path) suffice.
    flags = ["-s", "-B"]
    if sys.version_info >= (3, 11):
        flags.append("-P")
    return flags


def describe_exit(code: int | None) -> str:
    """A worker's exit code in words (negative codes are signals)."""
    if code is None:
        return "it did not exit"
    if code >= 0:
        return f"exit code {code}"
    number = -code
    reasons = {
        signal.SIGXCPU: "CPU time limit reached (SIGXCPU)",
        signal.SIGXFSZ: "file size limit reached (SIGXFSZ)",
        signal.SIGKILL: "killed (SIGKILL)",
        signal.SIGSEGV: "crashed with a segmentation fault (SIGSEGV)",
        signal.SIGABRT: "aborted (SIGABRT)",
    }
    if number in reasons:
        return reasons[number]
    try:
        return f"killed by signal {signal.Signals(number).name}"
    except ValueError:
        return f"killed by signal {number}"


class WorkerProcess:
    """One running worker for one submission."""

    def __init__(self, submission: Path, launcher: Launcher | None = None):
        self.submission = Path(submission).resolve()
        self.launcher: Launcher = launcher or LocalLauncher()
        self._handle: WorkerHandle | None = None
        self._output = None
        self._request_w = self._response_r = None
        self.last_reply_bytes = 0  # what keeping the last reply holds, at least (see _receive)

    @property
    def output_limit(self) -> int:
        return self.launcher.output_bytes

    @property
    def reply_limit(self) -> int:
        """The longest reply accepted from this worker, in bytes."""
        return self.launcher.reply_bytes

    # -- lifecycle -------------------------------------------------------------
    def start(self) -> None:
        self._handle = self.launcher.spawn(self.submission)
        self._request_w, self._response_r = self._handle.request_w, self._handle.response_r
        self._output = self._handle.output
        self._wait_ready()

    def _wait_ready(self) -> None:
        # Nothing of the student's has run yet, but the worker is no more trusted for that.
        os.set_blocking(self._request_w, False)
        try:
            reply = self._receive(time.monotonic() + STARTUP_TIMEOUT)
        except WorkerTimeout:
            raise WorkerDied("the worker did not start in time") from None
        except ReplyRejected as exc:
            raise WorkerDied(f"the worker did not start ({exc})") from None
        if not reply.get("ready"):
            raise WorkerDied("the worker did not start")

    @property
    def running(self) -> bool:
        return self._handle is not None and self._handle.alive

    def observe_memory(self, function: str | None) -> None:
        """Let the launcher check, from the kernel's figures, whether ``function``'s failure came
        with the worker at its memory limit (see ``ForkedWorker``)."""
        if self._handle is not None:
            self._handle.observe_memory(function)

    def kill(self) -> None:
        """Kill the worker's whole process group and release everything it held."""
        if self._handle is not None:
            self._handle.kill(self.output_limit)
        for fd in (self._request_w, self._response_r):
            if fd is not None:
                try:
                    os.close(fd)
                except OSError:
                    pass
        self._request_w = self._response_r = None
        if self._output is not None:
            self._output.close()
            self._output = None
        self._handle = None

    # -- requests --------------------------------------------------------------
    def request(self, message: dict | bytes, timeout: float) -> dict:
        """Send one request and wait at most ``timeout`` seconds for its reply.

        ``message`` is a request, or its frame (:func:`runtime.frame`) when it was built once
        to be sent many times (a replay's batch, see ``grader.core.replay``).

        Raises
        ------
        WorkerTimeout, WorkerDied
        ReplyTooLarge
            the reply's header announced more than :attr:`reply_limit` bytes; nothing
            more was read, and the worker must be killed.
        ReplyRejected
            the reply broke a bound of :mod:`grader.worker.replies`; it was read whole.
        """
        deadline = time.monotonic() + max(timeout, 0.0)
        self.send(message, timeout)
        return self._receive(deadline)

    def send(self, message: dict | bytes, timeout: float) -> None:
        """Write one request (or its frame) within ``timeout`` seconds; :meth:`receive` reads each reply."""
        if not self.running:
            raise WorkerDied("the worker is not running", self._returncode())
        self._write_all(
            message if isinstance(message, bytes) else runtime.frame(message), time.monotonic() + max(timeout, 0.0)
        )

    def receive(self, timeout: float) -> dict:
        """Wait at most ``timeout`` seconds for the next reply (raises as :meth:`request`)."""
        return self._receive(time.monotonic() + max(timeout, 0.0))

    def receive_bytes(self, timeout: float) -> bytes:
        """The next reply's bytes, unread (:func:`~grader.worker.replies.parse_reply` reads them), waiting at
        most ``timeout`` seconds; raises as :meth:`request` but for ReplyRejected (a reply not yet read)."""
        return self._receive_bytes(time.monotonic() + max(timeout, 0.0))

    def _write_all(self, payload: bytes, deadline: float) -> None:
        """Write a request without blocking past ``deadline`` (a worker may stop reading)."""
        view = memoryview(payload)
        while view:
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                raise WorkerTimeout()
            try:
                _, ready, _ = select.select([], [self._request_w], [], remaining)
                if ready:
                    view = view[os.write(self._request_w, view) :]
            except BlockingIOError:
                continue
            except OSError:
                raise WorkerDied("the worker stopped reading requests", self._returncode()) from None

    def _returncode(self) -> int | None:
        return self._handle.returncode(wait=1.0) if self._handle is not None else None

    def _read_exact(self, n: int, deadline: float) -> bytes:
        chunks = []
        while n:
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                raise WorkerTimeout()
            ready, _, _ = select.select([self._response_r], [], [], remaining)
            if not ready:
                raise WorkerTimeout()
            chunk = os.read(self._response_r, min(n, 1 << 20))
            if not chunk:
                code = self._returncode()
                raise WorkerDied(f"the worker process ended (exit code {code})", code)
            chunks.append(chunk)
            n -= len(chunk)
        return b"".join(chunks)

    def _receive(self, deadline: float) -> dict:
        return parse_reply(self._receive_bytes(deadline))

    def _receive_bytes(self, deadline: float) -> bytes:
        (length,) = runtime.HEADER.unpack(self._read_exact(runtime.HEADER.size, deadline))
        if length > self.reply_limit:
            raise ReplyTooLarge(length, self.reply_limit)
        data = self._read_exact(length, deadline)
        # What keeping the reply will hold, at least: its bytes, and a pointer and an object per value.
        self.last_reply_bytes = len(data) + 40 * (data.count(b",") + data.count(b"[") + data.count(b"{"))
        return data
