"""The trusted side of the boundary: start, talk to and kill a worker process.

A worker runs ``runtime.py`` on one submission in its own process group. Requests
and replies travel over two private pipes as plain data; the student's own
stdout/stderr go to a capture file. Every wait has a deadline, and on a timeout or
a crash the whole process group is killed.

Two kinds of launcher start workers:

- :class:`LocalLauncher` returns a :class:`Launch` (a command line): a new Python
  process per worker, no sandbox (``grader check`` on the student's own machine);
- a launcher with a ``spawn(submission)`` method, such as
  :class:`grader.sandbox.SandboxLauncher`, forks the worker from a zygote that has
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
from dataclasses import dataclass
from pathlib import Path

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


@dataclass
class Launch:
    """How to start one worker: the command line, its environment and descriptors."""

    argv: list[str]
    env: dict[str, str]
    cwd: str
    pass_fds: tuple[int, ...] = ()


class LocalLauncher:
    """Start the worker as a plain child process (no sandbox).

    The sandboxing launcher wraps the same command; see ``grader.sandbox``.
    """

    name = "local"

    def launch(
        self,
        submission: Path,
        request_fd: int,
        response_fd: int,
        scratch: Path,
        reply_limit: int = DEFAULT_REPLY_KB * 1024,
    ) -> Launch:
        argv = [
            sys.executable,
            *interpreter_flags(),
            str(RUNTIME_PATH),
            str(submission),
            str(request_fd),
            str(response_fd),
            str(reply_limit),
        ]
        env = dict(base_environment(), HOME=str(scratch), TMPDIR=str(scratch))
        return Launch(argv=argv, env=env, cwd=str(scratch), pass_fds=(request_fd, response_fd))


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

    def __init__(self, submission: Path, launcher=None):
        self.submission = Path(submission).resolve()
        self.launcher = launcher or LocalLauncher()
        self.process: subprocess.Popen | None = None
        self._forked = None  # the handle of a worker forked by a zygote launcher
        self._scratch: tempfile.TemporaryDirectory | None = None
        self._output = None
        self._request_w = self._response_r = None

    @property
    def output_limit(self) -> int:
        limits = getattr(self.launcher, "limits", None)
        return int(getattr(limits, "output_bytes", OUTPUT_LIMIT))

    @property
    def reply_limit(self) -> int:
        """The longest reply accepted from this worker, in bytes."""
        limits = getattr(self.launcher, "limits", None)
        return int(getattr(limits, "reply_bytes", DEFAULT_REPLY_KB * 1024))

    # -- lifecycle -------------------------------------------------------------
    def start(self) -> None:
        if hasattr(self.launcher, "spawn"):
            self._forked = self.launcher.spawn(self.submission)
            self._request_w, self._response_r = self._forked.request_w, self._forked.response_r
            self._output = self._forked.output
            self._wait_ready()
            return
        self._scratch = tempfile.TemporaryDirectory(prefix="grader-worker-")
        scratch = Path(self._scratch.name)
        request_r, self._request_w = os.pipe()
        self._response_r, response_w = os.pipe()
        self._output = tempfile.TemporaryFile(prefix="grader-output-")
        launch = self.launcher.launch(self.submission, request_r, response_w, scratch, self.reply_limit)
        try:
            self.process = subprocess.Popen(
                launch.argv,
                env=launch.env,
                cwd=launch.cwd,
                pass_fds=launch.pass_fds,
                stdin=subprocess.DEVNULL,
                stdout=self._output,
                stderr=subprocess.STDOUT,
                start_new_session=True,
            )
        finally:
            os.close(request_r)
            os.close(response_w)
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
        if self._forked is not None:
            return self._forked.alive
        return self.process is not None and self.process.poll() is None

    def observe_memory(self, function: str | None) -> None:
        """Let a sandbox launcher check, from the kernel's figures, whether ``function``'s
        failure came with the worker at its memory limit (see ``ForkedWorker``)."""
        if self._forked is not None:
            self._forked.observe_memory(function)

    def kill(self) -> None:
        """Kill the worker's whole process group and release everything it held."""
        if self._forked is not None:
            self._forked.kill(self.output_limit)
        if self.process is not None:
            try:
                os.killpg(self.process.pid, signal.SIGKILL)
            except (ProcessLookupError, PermissionError):
                pass
            try:
                self.process.wait(timeout=10)
            except subprocess.TimeoutExpired:  # pragma: no cover - SIGKILL is not ignorable
                pass
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
        if self._scratch is not None:
            self._scratch.cleanup()
            self._scratch = None
        self.process = None
        self._forked = None

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
        if self._forked is not None:
            return self._forked.returncode(wait=1.0)
        if self.process is None:
            return None
        try:
            return self.process.wait(timeout=1.0)
        except subprocess.TimeoutExpired:
            return None

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
        (length,) = runtime.HEADER.unpack(self._read_exact(runtime.HEADER.size, deadline))
        if length > self.reply_limit:
            raise ReplyTooLarge(length, self.reply_limit)
        data = self._read_exact(length, deadline)
        # What keeping the reply will hold, at least: its bytes, and a pointer and an object per value.
        self.last_reply_bytes = len(data) + 40 * (data.count(b",") + data.count(b"[") + data.count(b"{"))
        return parse_reply(data)
