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
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from grader.errors import GraderError
from grader.sandbox import bwrap, cgroups, seccomp
from grader.sandbox.limits import Limits
from grader.sandbox.zygote import children, hide_ptys
from grader.worker import runtime
from grader.worker.client import RUNTIME_PATH, STARTUP_TIMEOUT, base_environment, interpreter_flags

ZYGOTE_PATH = Path(__file__).with_name("zygote.py").resolve()
CONTROL_TIMEOUT = 15.0
# Processes of a sandboxed submission where no cgroup accounts for memory: each may use the
# whole address space limit, so this many times it bounds the submission.
FALLBACK_PROCESSES = 4
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

    def __init__(
        self,
        argv: list[str],
        env: dict,
        control: socket.socket,
        child_end: socket.socket,
        log,
        pass_fds: tuple[int, ...] = (),
    ):
        self.log = log
        self.control = control
        try:
            self.process = subprocess.Popen(
                argv,
                env=env,
                stdin=subprocess.DEVNULL,
                stdout=log,
                stderr=subprocess.STDOUT,
                pass_fds=(child_end.fileno(), *pass_fds),
                start_new_session=True,
                umask=0o022,
                cwd="/",
            )
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
        for target in (lambda: os.killpg(self.process.pid, signal.SIGKILL), lambda: self.process.kill()):
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
    cgroup_mode : per-submission cgroups: ``"auto"`` (where they can be made), ``"require"`` (a
        required sandbox refuses to start without them) or ``"off"``.
    bubblewrap : False: as if bubblewrap were not installed (the fallback without it).

    Use as a context manager, or call :meth:`close`.
    """

    def __init__(
        self,
        limits: Limits | None = None,
        *,
        sandbox: str = "auto",
        warn=None,
        packages: tuple[str, ...] = bwrap.WORKER_PACKAGES,
        seccomp: bool = True,
        private: tuple[Path, ...] = (),
        cgroup_mode: str = "auto",
        bubblewrap: bool = True,
    ):
        if sandbox not in ("auto", "require", "off"):
            raise ValueError("sandbox must be auto, require or off")
        self.limits = limits or Limits()
        self.packages = packages
        self.setup: bwrap.BwrapSetup | None = None
        self.reason = "disabled (--no-sandbox)"
        if sandbox != "off":
            self.setup, self.reason = bwrap.probe(bubblewrap)
            if self.setup is None and (sandbox == "require" or self.limits.require):
                raise GraderError(f"the sandbox is required but not available: {self.reason}")
        if self.setup is None and warn is not None:
            warn(self.reason)
        self.filtered = seccomp and self.setup is not None and self.setup.seccomp
        self.uid = bwrap.pick_uid() if self.setup is not None and self.setup.as_root else None
        # Without bubblewrap, as root (Gradescope's containers, CI): student code must still
        # not run as root. The zygote gives root up for a user id of its own and installs the
        # seccomp filter itself; where that cannot hold, nothing is graded.
        self.unprivileged = self.setup is None and sandbox != "off" and bwrap.running_as_root()
        if self.unprivileged:
            self.uid = bwrap.pick_uid()
            problem = unprivileged_problem(self.uid, private)
            if problem:
                raise GraderError(
                    f"refusing to grade: bubblewrap is not available ({self.reason}) and this "
                    f"runs as root, so student code would run as root or {problem}"
                )
            self.filtered = True
        # Without bubblewrap the host's /dev/ptmx is there: hidden by the zygote where root can (its own
        # mount namespace), else bounded by descriptors times processes (docs/class_grading.md).
        self.no_hidden_ptys = hide_ptys_problem() if self.unprivileged else "not root without bubblewrap"
        # On the zygote's command line (and so on every worker forked from it): lets
        # a test, or an instructor with ps, find anything this launcher started.
        self.tag = f"grader-{os.getpid()}-{id(self):x}"
        self._zygote: _Zygote | None = None
        self._dirty = False
        self.spawned = 0
        self.zygotes_started = 0
        self.history: dict[str, list[WorkerExit]] = {}
        # Memory and processes as the kernel accounts them, per submission (grader.sandbox.cgroups).
        self.hierarchy, self.no_cgroups = cgroups.detect(cgroup_mode != "off")
        required = sandbox == "require" or self.limits.require
        if self.hierarchy is None and required and cgroup_mode == "require":
            raise GraderError(f"per-submission cgroups are required but not available: {self.no_cgroups}")
        self._cgroup: cgroups.SubmissionCgroup | None = None
        self._cgroups_made = 0

    name = "sandbox"

    @property
    def socket_families(self) -> tuple[str, ...]:
        """The socket families the filter admits (:data:`grader.sandbox.seccomp.SOCKET_FAMILIES`).

        ``AF_UNIX`` only where both halves of its reason hold: its names are the sandbox's own
        (bubblewrap: its network namespace holds the abstract ones, its private /tmp the files;
        without bubblewrap the host's daemons listen there) and the kernel charges its buffers to the
        submission (a cgroup). Nothing else anywhere: student code needs no network.
        """
        return ("AF_UNIX",) if self.setup is not None and self.hierarchy is not None else ()

    @property
    def accounting(self) -> str:
        """How a submission's memory, processes and CPU are bounded (printed with the sandbox line)."""
        ptys = (
            ", ptys denied by its devices controller"
            if self.hierarchy is not None and self.hierarchy.denies_ptys
            else ""
        )
        if self.hierarchy is not None and self.hierarchy.cpu is None:
            return (
                f"memory and processes per submission by {self.hierarchy.kind}{ptys}; "
                f"no CPU share ({self.hierarchy.no_cpu})"
            )
        if self.hierarchy is not None:
            return f"memory, processes and CPU (one process's share) per submission by {self.hierarchy.kind}{ptys}"
        if self.setup is not None:
            denied = ", memfd, System V shared memory and sockets denied" if self.filtered else ""
            return (
                f"no cgroup ({self.no_cgroups}): per-process limits, at most "
                f"{min(self.limits.processes, FALLBACK_PROCESSES)} processes{denied}"
            )
        return f"per-process limits only ({self.no_cgroups})"

    def _zygote_tree(self, zygote: "_Zygote") -> list[int]:
        """Host pids of the zygote's processes (bubblewrap and the zygote; no worker is alive)."""
        found, todo = [], [zygote.process.pid]
        while todo and len(found) < 64:
            pid = todo.pop()
            found.append(pid)
            try:
                todo.extend(children(pid))
            except OSError:
                pass
        return found

    def _fresh_cgroup(self, zygote: "_Zygote") -> "cgroups.SubmissionCgroup | None":
        """A new cgroup for the next submission, the zygote moved into it (its fork inherits it);
        the last submission's cgroup removed, with anything of it still alive."""
        if self.hierarchy is None:
            return None
        self._cgroups_made += 1
        # The sandbox's own processes (bubblewrap, the zygote) count in the cgroup too.
        group = cgroups.SubmissionCgroup(
            self.hierarchy,
            f"{self.tag}/s{self._cgroups_made}",
            cgroups.memory_bound(self.limits.memory_mb),
            self.limits.processes + 2,
        )
        tree = self._zygote_tree(zygote)
        try:
            group.add(tree)
        except BaseException:
            group.remove(move_to=self._cgroup, keep=tree)  # the zygote back where it was; no cgroup left over
            raise
        self._drop_cgroup(keep=tree)
        self._cgroup = group
        return group

    def _drop_cgroup(self, keep: list[int] = ()) -> None:
        if self._cgroup is not None:
            self._cgroup.remove(keep=list(keep))
            self._cgroup = None

    @property
    def sandboxed(self) -> bool:
        return self.setup is not None

    def describe(self) -> str:
        if self.setup is None and self.unprivileged:
            ptys = "host's ptys hidden" if not self.no_hidden_ptys else f"host's ptys ({self.no_hidden_ptys})"
            return (
                f"no bubblewrap ({self.reason}): uid {self.uid}, seccomp filter, no sockets, {ptys}, limits; "
                f"{self.accounting}"
            )
        if self.setup is None:
            return f"limits only, no sandbox ({self.reason}; {self.accounting})"
        who = f"uid {self.uid}" if self.uid is not None else "user namespace"
        if self.filtered:
            families = self.socket_families
            filtered = "seccomp filter, " + (f"sockets {', '.join(families)} only" if families else "no sockets")
        else:
            filtered = f"no seccomp filter: {self.setup.no_seccomp or 'turned off'}"
        return f"bubblewrap sandbox ({who}, no network, private /tmp, PID namespace, {filtered}; {self.accounting})"

    # -- the zygote ----------------------------------------------------------------
    def _command(self, fd: int, seccomp_fd: int | None = None) -> list[str]:
        python = [sys.executable, *interpreter_flags()]
        if self.setup is None:
            command = [*python, str(ZYGOTE_PATH), str(RUNTIME_PATH), str(fd), "--tag", self.tag]
            if self.unprivileged:
                command += ["--uid", str(self.uid), "--gid", str(self.uid)]
                if not self.no_hidden_ptys:
                    command += ["--ptys", "hide"]
                if seccomp_fd is not None:
                    command += ["--seccomp-fd", str(seccomp_fd)]
            return command
        inner = [
            *python,
            f"{bwrap.SANDBOX_GRADER_DIR}/zygote.py",
            f"{bwrap.SANDBOX_GRADER_DIR}/runtime.py",
            str(fd),
            "--root",
            bwrap.SANDBOX_SCRATCH,
            "--tag",
            self.tag,
        ]
        if self.uid is not None:
            inner += ["--uid", str(self.uid), "--gid", str(self.uid)]
        return bwrap.sandbox_command(
            self.setup,
            inner,
            scratch_bytes=self.limits.scratch_bytes,
            grader_files={"zygote.py": ZYGOTE_PATH, "runtime.py": RUNTIME_PATH},
            packages=self.packages,
            seccomp_fd=seccomp_fd,
        )

    def _start_zygote(self) -> _Zygote:
        ours, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_STREAM)
        log = tempfile.TemporaryFile(prefix="grader-zygote-")
        env = base_environment()
        env["HOME"] = env["TMPDIR"] = bwrap.SANDBOX_SCRATCH if self.setup else tempfile.gettempdir()
        program = None
        try:
            # Without a cgroup, nothing would count a memfd or a System V segment: denied instead.
            unaccounted = () if self.hierarchy is not None else seccomp.UNACCOUNTED
            program = bwrap.filter_pipe(unaccounted, self.socket_families) if self.filtered else None
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
        self._drop_cgroup()
        if self.hierarchy is not None:
            cgroups.remove_parent(self.hierarchy, self.tag)

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
        return {
            path.relative_to(staged).as_posix(): base64.b64encode(path.read_bytes()).decode("ascii")
            for path in sorted(Path(staged).rglob("*"))
            if path.is_file()
        }

    def spawn(self, submission: Path) -> "ForkedWorker":
        """A fresh worker for ``submission`` (a staged directory), forked by the zygote."""
        # The files travel in a file only the forked worker reads: the zygote never holds them.
        files = tempfile.TemporaryFile(prefix="grader-files-")
        files.write(json.dumps(self._files(submission)).encode("utf-8"))
        files.flush()
        try:
            return self._spawn(submission, files)
        finally:
            files.close()

    def _spawn(self, submission: Path, files) -> "ForkedWorker":
        own_uid = self.sandboxed or self.unprivileged  # RLIMIT_NPROC counts only the worker's own uid
        message = {
            "op": "spawn",
            "env": base_environment(),
            "limits": self.limits.rlimits(processes=own_uid),
            "reply_bytes": self.limits.reply_bytes,
        }
        if own_uid:
            # The zygote shares the worker's user id and counts as one of its processes.
            soft, hard = message["limits"]["RLIMIT_NPROC"]
            if self.hierarchy is None:
                # No cgroup sums the processes' memory: few processes, each under RLIMIT_AS.
                soft, hard = min(soft, FALLBACK_PROCESSES), min(hard, FALLBACK_PROCESSES)
            message["limits"]["RLIMIT_NPROC"] = (soft + 1, hard + 1)
        last_error = None
        for _attempt in range(2):  # a broken zygote is replaced once, transparently
            zygote = self._ready_zygote()
            try:
                group = self._fresh_cgroup(zygote)
            except OSError as exc:
                raise GraderError(f"could not make the submission's cgroup: {exc}") from None
            request_r, request_w = os.pipe()
            response_r, response_w = os.pipe()
            output = tempfile.TemporaryFile(prefix="grader-output-")
            try:
                reply = zygote.call(message, (request_r, response_w, output.fileno(), files.fileno()))
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
            return ForkedWorker(self, zygote, int(reply["pid"]), request_w, response_r, output, Path(submission), group)
        raise GraderError(f"the grading worker could not be started: {last_error}")

    def _record(self, submission: Path, exit: WorkerExit) -> None:
        self.history.setdefault(str(submission), []).append(exit)

    def take_history(self, submission: Path | str) -> list[WorkerExit]:
        """How the workers of ``submission`` ended (and forget it)."""
        return self.history.pop(str(submission), [])

    def take_exits(self) -> list[WorkerExit]:
        """How every worker that ended since the last call ended (and forget them)."""
        exits = [exit for found in self.history.values() for exit in found]
        self.history.clear()
        return exits

    @property
    def reply_bytes(self) -> int:
        return self.limits.reply_bytes

    @property
    def output_bytes(self) -> int:
        return self.limits.output_bytes


def _private_sample(private: tuple[Path, ...], sample: int) -> list[str]:
    """The private folders, their entries and up to ``sample`` files under each innermost one."""
    files = []
    folders = [Path(folder) for folder in private]
    for folder in folders:
        if not folder.is_dir():
            continue
        files += [str(folder)] + [str(p) for p in sorted(folder.iterdir())[:sample]]
        # Below a folder that holds other private ones (the course's root, which may hold a whole
        # virtualenv), its entries are enough: a sample of files is taken in the inner ones.
        if not any(other != folder and folder in other.parents for other in folders):
            files += [str(p) for p in sorted(p for p in folder.rglob("*") if p.is_file())[:sample]]
    return files


def unprivileged_problem(uid: int, private: tuple[Path, ...], sample: int = 200) -> str:
    """ "" if user id ``uid`` can give up root here and read none of ``private``; else what is wrong.

    Tried for real, in a forked child that becomes ``uid``: each private folder (the course's
    root, the hidden tests, the solutions), its entries and up to ``sample`` files under each of
    the last two must fail to open or list. A folder's entries are what a traversable but
    unlistable folder (mode 0711) still gives away, e.g. the course's ``.git``.
    """
    if seccomp.native_arch() is None:
        return f"no seccomp filter exists for {os.uname().machine}"
    # What the worker must read as that user: this Python's standard library (a module a student
    # imports is loaded then) and numpy. A Python under /root (0700) cannot serve.
    import numpy

    needed = [
        os.path.realpath(sys.executable),
        os.path.dirname(os.__file__) + "/tempfile.py",
        os.path.dirname(numpy.__file__) + "/__init__.py",
    ]
    files = _private_sample(private, sample)

    def as_uid() -> bytes:
        try:
            os.setgroups([])
            os.setresgid(uid, uid, uid)
            os.setresuid(uid, uid, uid)
        except OSError as exc:
            return b"\0" + str(exc).encode("utf-8", "replace")
        for path in needed:
            try:
                os.close(os.open(path, os.O_RDONLY))
            except OSError:
                return b"\1" + path.encode("utf-8", "replace")
        for path in files:
            try:
                if os.path.isdir(path):
                    os.listdir(path)
                else:
                    os.close(os.open(path, os.O_RDONLY))
                return path.encode("utf-8", "replace")
            except OSError:
                continue
        return b""

    answer = _in_child(as_uid)
    if answer.startswith(b"\0"):
        return f"could not become user id {uid} ({answer[1:].decode()})"
    if answer.startswith(b"\1"):
        return (
            f"user id {uid} cannot read {answer[1:].decode()}, which the worker needs: install bubblewrap, "
            "or a Python readable by every user"
        )
    if answer:
        return (
            f"user id {uid} could read {answer.decode()} (the course: its hidden tests, solutions or history): "
            "make the course's folder readable by its owner only (chmod -R go-rwx), or install bubblewrap"
        )
    return ""


def hide_ptys_problem() -> str:
    """ "" if the zygote can hide the host's ptys here (:func:`grader.sandbox.zygote.hide_ptys`, as root);
    else why not. Tried for real, in a forked child whose mount namespace goes with it: once hidden, its
    /dev/ptmx must not open (a kernel before 4.7 took every ptmx to the first devpts, wherever mounted)."""

    def hidden() -> bytes:
        why = hide_ptys()
        if why:
            return why.encode("utf-8", "replace")
        try:
            os.close(os.open("/dev/ptmx", os.O_RDWR | os.O_NOCTTY))
        except OSError:
            return b""
        return b"/dev/ptmx still opens with every devpts covered"

    return _in_child(hidden).decode("utf-8", "replace")


def _in_child(probe: Callable[[], bytes]) -> bytes:
    """What ``probe`` answers (at most 4,000 bytes) run in a forked child, which may change its user id or
    mount namespace for good: they go with it. ``b"failed"`` when it raised."""
    read, write = os.pipe()
    pid = os.fork()
    if pid == 0:  # pragma: no cover - the child reports through the pipe
        answer = b"failed"
        try:
            answer = probe()
        finally:  # the child holds the grader's state: whatever happens, it never returns into it
            try:
                os.write(write, answer[:4000])
            finally:
                os._exit(0)
    os.close(write)
    with os.fdopen(read, "rb") as pipe:
        answer = pipe.read()
    os.waitpid(pid, 0)
    return answer


class ForkedWorker:
    """One worker forked by the zygote: its pipes, its output file, and how to end it."""

    def __init__(
        self,
        launcher: SandboxLauncher,
        zygote: _Zygote,
        pid: int,
        request_w: int,
        response_r: int,
        output,
        submission: Path,
        cgroup: "cgroups.SubmissionCgroup | None" = None,
    ):
        self.launcher = launcher
        self.cgroup = cgroup
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
        if self.cgroup is not None and self.cgroup.hit_limit():
            # The kernel refused the submission memory (or killed for it): at its limit,
            # whatever one process's address space shows (memfd, shm, many processes).
            peak = max(peak if isinstance(peak, int) else 0, int(self.launcher.limits.memory_mb * cgroups.MB))
        if isinstance(peak, int) and peak >= 0:
            self.peak_memory = max(peak, self.peak_memory or 0)
            return peak
        return None

    def observe_memory(self, function: str | None) -> None:
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
            if self.cgroup is not None and self.cgroup.hit_limit():
                # The kernel's own account of the submission (its OOM kill may have taken the
                # zygote, which then could not answer): at the memory limit.
                self.peak_memory = max(self.peak_memory or 0, int(self.launcher.limits.memory_mb * cgroups.MB))
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
