"""The trusted side of the zygote: start it (sandboxed when possible), fork workers from it.

:class:`SandboxLauncher` is a launcher for :class:`grader.worker.client.WorkerProcess`:
instead of starting a new Python per submission, ``spawn`` asks the zygote to fork
a worker that already has numpy imported. Every wait has a deadline; a zygote that
stops answering, dies, or cannot clean up after a worker is killed and replaced.
"""

from __future__ import annotations

import base64
import json
import os
import signal
import socket
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

from grader.errors import GraderError
from grader.sandbox import bwrap
from grader.sandbox.limits import Limits
from grader.worker import runtime
from grader.worker.client import RUNTIME_PATH, STARTUP_TIMEOUT, base_environment, interpreter_flags

ZYGOTE_PATH = Path(__file__).with_name("zygote.py").resolve()
CONTROL_TIMEOUT = 15.0
CONTROL_REPLY_LIMIT = 64 * 1024  # the zygote's replies are a few fields


class ZygoteError(Exception):
    """The zygote did not answer as it should (it is replaced on the next spawn)."""


def _tail(log, n: int = 2000) -> str:
    """The end of a log file (what a process said before it failed)."""
    try:
        log.flush()
        log.seek(0)
        return log.read()[-n:].decode("utf-8", "replace").strip()
    except (OSError, ValueError):
        return ""


@dataclass
class WorkerExit:
    """How one worker ended: for reports of submissions that hit a limit.

    ``peak_memory`` is the kernel's figure (bytes), read by the zygote; ``memory_function``
    the function whose failed call first found it near the memory limit, if one did.
    """

    code: int | None
    output_bytes: int
    output: str = ""
    peak_memory: int | None = None
    memory_function: str | None = None


class _Zygote:
    """One running zygote process and its control socket."""

    def __init__(self, argv: list[str], env: dict, control: socket.socket, child_end: socket.socket, log,
                 pass_fds: tuple[int, ...] = ()):
        self.log = log
        self.control = control
        try:
            self.process = subprocess.Popen(
                argv, env=env, stdin=subprocess.DEVNULL, stdout=log, stderr=subprocess.STDOUT,
                pass_fds=(child_end.fileno(), *pass_fds), start_new_session=True, umask=0o022, cwd="/")
        finally:
            child_end.close()
        try:
            self.info = self.receive(time.monotonic() + STARTUP_TIMEOUT)
            if not self.info.get("ready"):
                raise ZygoteError("the zygote did not start")
        except ZygoteError:
            self.terminate(close=False)
            raise

    @property
    def alive(self) -> bool:
        return self.process.poll() is None

    def send(self, message: dict, fds: tuple[int, ...] = ()) -> None:
        data = json.dumps(message, separators=(",", ":")).encode("utf-8")
        payload = runtime.HEADER.pack(len(data)) + data
        self.control.settimeout(CONTROL_TIMEOUT)
        try:
            sent = socket.send_fds(self.control, [payload], list(fds)) if fds else self.control.send(payload)
            if sent < len(payload):
                self.control.sendall(payload[sent:])
        except (OSError, socket.timeout) as exc:
            raise ZygoteError(f"the zygote stopped reading ({exc})") from None

    def receive(self, deadline: float) -> dict:
        def exact(n: int) -> bytes:
            chunks = []
            while n:
                remaining = deadline - time.monotonic()
                if remaining <= 0:
                    raise ZygoteError("the zygote did not answer in time")
                self.control.settimeout(remaining)
                try:
                    chunk = self.control.recv(min(n, 1 << 20))
                except socket.timeout:
                    raise ZygoteError("the zygote did not answer in time") from None
                except OSError as exc:
                    raise ZygoteError(f"the zygote connection failed ({exc})") from None
                if not chunk:
                    raise ZygoteError("the zygote ended")
                chunks.append(chunk)
                n -= len(chunk)
            return b"".join(chunks)

        (length,) = runtime.HEADER.unpack(exact(runtime.HEADER.size))
        if length > CONTROL_REPLY_LIMIT:
            raise ZygoteError("the zygote sent an oversized reply")
        try:
            reply = json.loads(exact(length).decode("utf-8"))
        except (ValueError, RecursionError):
            reply = None
        if not isinstance(reply, dict):
            raise ZygoteError("the zygote sent a malformed reply")
        return reply

    def call(self, message: dict, fds: tuple[int, ...] = (), timeout: float = CONTROL_TIMEOUT) -> dict:
        self.send(message, fds)
        return self.receive(time.monotonic() + timeout)

    def terminate(self, close: bool = True) -> None:
        """Kill the whole sandbox (bwrap and, through --die-with-parent, all inside)."""
        for target in (lambda: os.killpg(self.process.pid, signal.SIGKILL),
                       lambda: self.process.kill()):
            try:
                target()
            except (ProcessLookupError, PermissionError):
                pass
        try:
            self.process.wait(timeout=10)
        except subprocess.TimeoutExpired:  # pragma: no cover - SIGKILL cannot be ignored
            pass
        if close:
            self.control.close()
            self.log.close()


class SandboxLauncher:
    """Forks grading workers from one pre-started zygote, sandboxed by bubblewrap if possible.

    Parameters
    ----------
    limits : the resource limits of every worker.
    sandbox : ``"auto"`` (bubblewrap when it works, else limits only), ``"require"``
        (refuse without bubblewrap) or ``"off"`` (limits only).
    warn : called once with a message when the sandbox is not used.
    seccomp : install the seccomp filter (:mod:`grader.sandbox.seccomp`) where bubblewrap
        can; False only to measure what it costs.

    Use as a context manager, or call :meth:`close`.
    """

    def __init__(self, limits: Limits | None = None, *, sandbox: str = "auto", warn=None,
                 packages: tuple[str, ...] = bwrap.WORKER_PACKAGES, seccomp: bool = True):
        if sandbox not in ("auto", "require", "off"):
            raise ValueError("sandbox must be auto, require or off")
        self.limits = limits or Limits()
        self.packages = packages
        self.setup: bwrap.BwrapSetup | None = None
        self.reason = "disabled (--no-sandbox)"
        if sandbox != "off":
            self.setup, self.reason = bwrap.probe()
            if self.setup is None and (sandbox == "require" or self.limits.require):
                raise GraderError(f"the sandbox is required but not available: {self.reason}")
        if self.setup is None and warn is not None:
            warn(self.reason)
        self.filtered = seccomp and self.setup is not None and self.setup.seccomp
        self.uid = bwrap.pick_uid() if self.setup is not None and self.setup.as_root else None
        # On the zygote's command line (and so on every worker forked from it): lets
        # a test, or an instructor with ps, find anything this launcher started.
        self.tag = f"grader-{os.getpid()}-{id(self):x}"
        self._zygote: _Zygote | None = None
        self._dirty = False
        self.spawned = 0
        self.zygotes_started = 0
        self.history: dict[str, list[WorkerExit]] = {}

    name = "sandbox"

    @property
    def sandboxed(self) -> bool:
        return self.setup is not None

    def describe(self) -> str:
        if self.setup is None:
            return f"limits only, no sandbox ({self.reason})"
        who = f"uid {self.uid}" if self.uid is not None else "user namespace"
        if self.filtered:
            filtered = "seccomp filter"
        else:
            filtered = f"no seccomp filter: {self.setup.no_seccomp or 'turned off'}"
        return f"bubblewrap sandbox ({who}, no network, private /tmp, PID namespace, {filtered})"

    # -- the zygote ----------------------------------------------------------------
    def _command(self, fd: int, seccomp_fd: int | None = None) -> list[str]:
        python = [sys.executable, *interpreter_flags()]
        if self.setup is None:
            return [*python, str(ZYGOTE_PATH), str(RUNTIME_PATH), str(fd), "--tag", self.tag]
        inner = [*python, f"{bwrap.SANDBOX_GRADER_DIR}/zygote.py", f"{bwrap.SANDBOX_GRADER_DIR}/runtime.py",
                 str(fd), "--root", bwrap.SANDBOX_SCRATCH, "--tag", self.tag]
        if self.uid is not None:
            inner += ["--uid", str(self.uid), "--gid", str(self.uid)]
        return bwrap.sandbox_command(self.setup, inner, scratch_bytes=self.limits.scratch_bytes,
                                     grader_files={"zygote.py": ZYGOTE_PATH, "runtime.py": RUNTIME_PATH},
                                     packages=self.packages, seccomp_fd=seccomp_fd)

    def _start_zygote(self) -> _Zygote:
        ours, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_STREAM)
        log = tempfile.TemporaryFile(prefix="grader-zygote-")
        env = base_environment()
        env["HOME"] = env["TMPDIR"] = bwrap.SANDBOX_SCRATCH if self.setup else tempfile.gettempdir()
        program = None
        try:
            program = bwrap.filter_pipe() if self.filtered else None
            fds = (program,) if program is not None else ()
            zygote = _Zygote(self._command(theirs.fileno(), program), env, ours, theirs, log, fds)
        except (ZygoteError, OSError) as exc:
            tail = _tail(log)
            ours.close()
            log.close()
            raise GraderError(f"the grading worker could not start ({exc})" + (f":\n{tail}" if tail else "")) from None
        finally:
            if program is not None:
                os.close(program)
        self.zygotes_started += 1
        return zygote

    def _ready_zygote(self) -> _Zygote:
        if self._zygote is not None and (self._dirty or not self._zygote.alive):
            self._zygote.terminate()
            self._zygote = None
        if self._zygote is None:
            self._zygote = self._start_zygote()
            self._dirty = False
        return self._zygote

    def _discard_zygote(self) -> None:
        if self._zygote is not None:
            self._zygote.terminate()
            self._zygote = None

    def start(self) -> "SandboxLauncher":
        """Start the zygote now (otherwise the first spawn does)."""
        self._ready_zygote()
        return self

    def close(self) -> None:
        self._discard_zygote()

    def __enter__(self) -> "SandboxLauncher":
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    def __del__(self):  # pragma: no cover - a safety net; close() is the way
        try:
            self.close()
        except Exception:
            pass

    # -- workers ---------------------------------------------------------------------
    @staticmethod
    def _files(staged: Path) -> dict[str, str]:
        """The staged submission's files, to be written into the sandbox by the zygote.

        Staging has already chosen them (no links, a size cap); nothing is filtered twice.
        """
        return {path.relative_to(staged).as_posix(): base64.b64encode(path.read_bytes()).decode("ascii")
                for path in sorted(Path(staged).rglob("*")) if path.is_file()}

    def spawn(self, submission: Path) -> "ForkedWorker":
        """A fresh worker for ``submission`` (a staged directory), forked by the zygote."""
        files = self._files(submission)
        message = {"op": "spawn", "files": files, "env": base_environment(),
                   "limits": self.limits.rlimits(processes=self.sandboxed), "reply_bytes": self.limits.reply_bytes}
        if self.sandboxed:
            # The zygote shares the worker's user id and counts as one of its processes.
            soft, hard = message["limits"]["RLIMIT_NPROC"]
            message["limits"]["RLIMIT_NPROC"] = (soft + 1, hard + 1)
        last_error = None
        for _attempt in range(2):  # a broken zygote is replaced once, transparently
            zygote = self._ready_zygote()
            request_r, request_w = os.pipe()
            response_r, response_w = os.pipe()
            output = tempfile.TemporaryFile(prefix="grader-output-")
            try:
                reply = zygote.call(message, (request_r, response_w, output.fileno()))
            except ZygoteError as exc:
                last_error = exc
                for fd in (request_w, response_r):
                    os.close(fd)
                output.close()
                self._discard_zygote()
                continue
            finally:
                os.close(request_r)
                os.close(response_w)
            if not reply.get("ok"):
                for fd in (request_w, response_r):
                    os.close(fd)
                output.close()
                raise GraderError(f"the zygote could not start a worker: {reply.get('message')}")
            self.spawned += 1
            return ForkedWorker(self, zygote, int(reply["pid"]), request_w, response_r, output, Path(submission))
        raise GraderError(f"the grading worker could not be started: {last_error}")

    def _record(self, submission: Path, exit: WorkerExit) -> None:
        self.history.setdefault(str(submission), []).append(exit)

    def take_history(self, submission: Path | str) -> list[WorkerExit]:
        """How the workers of ``submission`` ended (and forget it)."""
        return self.history.pop(str(submission), [])


class ForkedWorker:
    """One worker forked by the zygote: its pipes, its output file, and how to end it."""

    def __init__(self, launcher: SandboxLauncher, zygote: _Zygote, pid: int, request_w: int, response_r: int,
                 output, submission: Path):
        self.launcher = launcher
        self.zygote = zygote
        self.pid = pid
        self.request_w = request_w
        self.response_r = response_r
        self.output = output
        self.submission = submission
        self.code: int | None = None
        self.ended = False
        self.peak_memory: int | None = None
        self.memory_function: str | None = None

    @property
    def alive(self) -> bool:
        return not self.ended and self.launcher._zygote is self.zygote and self.zygote.alive

    def returncode(self, wait: float = 1.0) -> int | None:
        """The worker's exit code once it has ended (waits up to ``wait`` seconds)."""
        if self.ended or not self.alive:
            return self.code
        try:
            reply = self.zygote.call({"op": "status", "wait": wait}, timeout=wait + CONTROL_TIMEOUT)
        except ZygoteError:
            self.launcher._dirty = True
            return None
        if reply.get("exited"):
            self.code = reply.get("code")
        return self.code

    def _note_peak(self, reply: dict) -> int | None:
        peak = reply.get("peak_memory")
        if isinstance(peak, int) and peak >= 0:
            self.peak_memory = max(peak, self.peak_memory or 0)
            return peak
        return None

    def observe_memory(self, function: str) -> None:
        """After ``function`` failed: did the worker run into its memory limit?

        Only the kernel's figures count (through the zygote), never what the
        student's code raised or said.
        """
        if self.ended or self.memory_function is not None or not self.alive:
            return
        try:
            peak = self._note_peak(self.zygote.call({"op": "usage"}))
        except ZygoteError:
            self.launcher._dirty = True
            return
        if self.launcher.limits.near_memory_limit(peak):
            self.memory_function = function

    def kill(self, output_limit: int) -> WorkerExit:
        """Kill the worker and everything it started; wipe its scratch space."""
        if not self.ended:
            self.ended = True
            if self.launcher._zygote is self.zygote and self.zygote.alive:
                try:
                    reply = self.zygote.call({"op": "kill"})
                    if self.code is None:
                        self.code = reply.get("code")
                    self._note_peak(reply)
                    if not reply.get("clean", False):
                        self.launcher._dirty = True
                except ZygoteError:
                    self.launcher._discard_zygote()
        size = 0
        text = ""
        try:
            self.output.flush()
            size = os.fstat(self.output.fileno()).st_size
            self.output.seek(0)
            text = self.output.read(output_limit).decode("utf-8", "replace")
        except (OSError, ValueError):
            pass
        exit = WorkerExit(self.code, size, text, self.peak_memory, self.memory_function)
        self.launcher._record(self.submission, exit)
        return exit
