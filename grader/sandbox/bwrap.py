"""The bubblewrap command line that confines a grading worker.

The sandbox sees: the system directories (/usr and its /lib, /bin links)
read-only, this Python installation and numpy read-only, the two worker files
(``runtime.py``, ``zygote.py``) read-only under /opt/grader, a private /proc and
/dev, and a small private tmpfs at /tmp. Nothing else: not the course repository,
not solutions/ or the tests, not the gradebook, not other submissions. It has no
network (a fresh network namespace with only loopback), its own PID and IPC
namespaces (a private /dev/mqueue), dies with the grader (``--die-with-parent``),
and runs under the seccomp filter of :mod:`grader.sandbox.seccomp` (``--seccomp``).

Two ways to run it:

- as an ordinary user: bubblewrap creates a user namespace; the worker keeps the
  user's id inside it, with no capabilities;
- as root (containers, CI): bubblewrap runs privileged without a user namespace,
  keeps only CAP_SETUID/CAP_SETGID, and the zygote switches to a user id of its
  own before it imports anything. Either way the worker never holds root, and
  RLIMIT_NPROC counts only the sandbox's own processes.
"""

from __future__ import annotations

import functools
import importlib.util
import os
import shutil
import subprocess
import sys
from dataclasses import dataclass, field
from pathlib import Path

from grader.errors import GraderError
from grader.sandbox import seccomp

SANDBOX_GRADER_DIR = "/opt/grader"
SANDBOX_SCRATCH = "/tmp"
SYSTEM_DIRS = ("/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32")
# Third-party packages a worker may import. The course's code is numpy-only.
WORKER_PACKAGES = ("numpy",)
# POSIX shared memory (/dev/shm) gets a small tmpfs of its own: bubblewrap's /dev is an
# unbounded tmpfs, writable by the worker in a user namespace (memory filled through it),
# and root's 0755 directory otherwise (multiprocessing's semaphores fail).
SHM_BYTES = 16 * 1024 * 1024
# What /dev holds (dev_args): the device nodes a program without a terminal uses, bound from the
# host's, and the links to a process's own descriptors; read-only, so its tmpfs stays this small.
DEV_NODES = ("null", "zero", "full", "random", "urandom")
DEV_LINKS = {
    "fd": "/proc/self/fd",
    "stdin": "/proc/self/fd/0",
    "stdout": "/proc/self/fd/1",
    "stderr": "/proc/self/fd/2",
}
DEV_BYTES = 64 * 1024


@dataclass
class Mounts:
    """bubblewrap filesystem arguments, creating missing parent directories readable."""

    args: list[str] = field(default_factory=list)
    bound: list[str] = field(default_factory=list)
    made: set[str] = field(default_factory=lambda: {"/"})

    def _covered(self, path: str) -> bool:
        return any(path == b or path.startswith(b.rstrip("/") + "/") for b in self.bound)

    def _parents(self, dest: str) -> None:
        # Parents bubblewrap would create itself get mode 0700 when it runs as
        # root; the worker gives root up, so make them 0755 explicitly.
        parts = Path(dest).parent.parts
        for i in range(2, len(parts) + 1):
            parent = str(Path(*parts[:i]))
            if parent in self.made or self._covered(parent):
                continue
            self.args += ["--perms", "0755", "--dir", parent]
            self.made.add(parent)

    def ro_bind(self, source: str, dest: str | None = None) -> None:
        dest = dest or source
        if self._covered(dest):
            return
        self._parents(dest)
        self.args += ["--ro-bind", source, dest]
        self.bound.append(dest)
        self.made.add(dest)

    def symlink(self, target: str, dest: str) -> None:
        if self._covered(dest) or dest in self.made:
            return
        self._parents(dest)
        self.args += ["--symlink", target, dest]
        self.made.add(dest)

    def raw(self, *args: str, made: str | None = None) -> None:
        self.args += list(args)
        if made:
            self.made.add(made)


def _under(path: str, root: str) -> bool:
    return path == root or path.startswith(root.rstrip("/") + "/")


def python_mounts(mounts: Mounts, packages: tuple[str, ...] = WORKER_PACKAGES) -> None:
    """Make this interpreter, its standard library and ``packages`` visible read-only.

    Paths keep their host spelling, so a virtual environment (``pyvenv.cfg`` next to
    a symlinked ``bin/python``) resolves inside exactly as outside.
    """
    base = os.path.realpath(sys.base_prefix)
    mounts.ro_bind(base)
    # The executable: recreate each symlink of the chain, bind the final file.
    path = os.path.abspath(sys.executable)
    for _ in range(40):
        if not os.path.islink(path):
            break
        target = os.readlink(path)
        mounts.symlink(target, path)
        path = os.path.normpath(os.path.join(os.path.dirname(path), target))
    mounts.ro_bind(os.path.realpath(path), path)
    if os.path.realpath(sys.prefix) != base:
        cfg = os.path.join(sys.prefix, "pyvenv.cfg")
        if os.path.isfile(cfg):
            mounts.ro_bind(os.path.realpath(cfg), cfg)
    for name in packages:
        spec = importlib.util.find_spec(name)
        if spec is None or not spec.origin:
            raise GraderError(f"the sandbox needs {name}, which this Python ({sys.executable}) cannot import")
        package_dir = os.path.dirname(spec.origin)
        mounts.ro_bind(os.path.realpath(package_dir), package_dir)
        libs = package_dir + ".libs"  # manylinux wheels keep their shared libraries beside the package
        if os.path.isdir(libs):
            mounts.ro_bind(os.path.realpath(libs), libs)


def system_mounts(mounts: Mounts) -> None:
    for d in SYSTEM_DIRS:
        if os.path.islink(d):
            mounts.symlink(os.readlink(d), d)
        elif os.path.isdir(d):
            mounts.ro_bind(d)


def find_bwrap() -> str | None:
    """The bubblewrap executable, or None."""
    return shutil.which("bwrap") or (os.path.exists("/usr/bin/bwrap") and "/usr/bin/bwrap") or None


def running_as_root() -> bool:
    return os.geteuid() == 0


def namespace_args(as_root: bool, disable_userns: bool = True) -> list[str]:
    args = [
        "--die-with-parent",
        "--new-session",
        "--unshare-pid",
        "--unshare-net",
        "--unshare-ipc",
        "--unshare-uts",
        "--unshare-cgroup-try",
        "--hostname",
        "grader",
    ]
    if as_root:
        # No user namespace: the zygote drops to its own uid, so it needs these two.
        args += ["--cap-drop", "ALL", "--cap-add", "CAP_SETUID", "--cap-add", "CAP_SETGID"]
    else:
        args += ["--unshare-user", "--cap-drop", "ALL"]
        if disable_userns:
            args += ["--disable-userns"]
    return args


@dataclass(frozen=True)
class BwrapSetup:
    """A bubblewrap that was tried on this machine and works.

    ``seccomp`` says whether it also installs the seccomp filter here; if not,
    ``no_seccomp`` says why.
    """

    path: str
    as_root: bool
    disable_userns: bool
    seccomp: bool = False
    no_seccomp: str = ""


def filter_pipe(extra: tuple[str, ...] = (), families: tuple[str, ...] = ()) -> int:
    """A pipe's read end holding the seccomp filter of this machine (for ``--seccomp FD``), refusing
    ``extra`` too and admitting the socket ``families`` (:func:`grader.sandbox.seccomp.program`).

    The caller passes it to bubblewrap and closes it. The program is far smaller
    than a pipe's buffer, so it is written whole before bubblewrap reads it.
    """
    arch = seccomp.native_arch()
    if arch is None:
        raise OSError(f"no seccomp filter for the {os.uname().machine} architecture")
    read, write = os.pipe()
    try:
        os.write(write, seccomp.program(arch, extra, families))
    finally:
        os.close(write)
    return read


def _try(argv: list[str], fds: tuple[int, ...] = ()) -> str:
    """Run a bubblewrap command line; "" if it worked, else its last words."""
    try:
        proc = subprocess.run(argv, capture_output=True, text=True, timeout=30, pass_fds=fds)
    except (OSError, subprocess.TimeoutExpired) as exc:
        return f"could not run: {exc}"
    if proc.returncode == 0:
        return ""
    last = (proc.stderr or proc.stdout).strip().splitlines()[-1:] or [f"exit code {proc.returncode}"]
    return last[0]


@functools.lru_cache(maxsize=2)
def probe(enabled: bool = True) -> tuple[BwrapSetup | None, str]:
    """Try bubblewrap once per process, then its seccomp filter; (setup, "") or (None, why not).
    ``enabled`` False: as if it were not installed (the grading options' ``bubblewrap``)."""
    if not enabled:
        return None, "bubblewrap turned off (--no-bubblewrap)"
    path = find_bwrap()
    if path is None:
        return None, "bubblewrap (bwrap) is not installed (Debian/Ubuntu: apt-get install bubblewrap)"
    as_root = running_as_root()
    last = ""
    true = "/usr/bin/true" if os.path.exists("/usr/bin/true") else "/bin/true"
    for disable_userns in (True, False) if not as_root else (False,):
        mounts = Mounts()
        system_mounts(mounts)
        argv = [path, *namespace_args(as_root, disable_userns), *mounts.args, "--proc", "/proc", *dev_args()]
        last = _try([*argv, "--", true])
        if last.startswith("could not run"):
            return None, f"bubblewrap at {path} {last}"
        if last:
            continue
        try:
            fd = filter_pipe()
        except OSError as exc:
            return BwrapSetup(path, as_root, disable_userns, no_seccomp=str(exc)), ""
        try:
            refused = _try([*argv, "--seccomp", str(fd), "--", true], (fd,))
        finally:
            os.close(fd)
        return BwrapSetup(path, as_root, disable_userns, seccomp=not refused, no_seccomp=refused), ""
    return None, f"bubblewrap at {path} does not work here ({last}); user namespaces may be disabled"


def pick_uid() -> int:
    """A user id for the sandboxed worker (root only): unused by people, mapped here.

    One per grading process, so parallel graders do not share a process count.
    """
    ranges = []
    try:
        with open("/proc/self/uid_map") as f:
            for line in f:
                inside, _, count = (int(x) for x in line.split())
                ranges.append((inside, inside + count))
    except OSError:
        ranges = [(0, 1 << 32)]
    pid = os.getpid()
    for low, high in ranges:
        if high > 1_100_000 and low <= 1_000_000:
            return 1_000_000 + pid % 100_000
    for low, high in ranges:
        if high >= 61_000 and low <= 50_000:
            return 50_000 + pid % 10_000
    return 65534


def dev_args() -> list[str]:
    """A minimal /dev, read-only but for its own small /dev/shm and the sandbox's /dev/mqueue.

    Made here rather than by bubblewrap's ``--dev``, which also mounts a devpts instance (``ptmxmode=666``,
    with a ``/dev/ptmx`` link): its ptys count in the host's global pool (``kernel.pty.max``) and their
    buffers in no cgroup (one submission held 3,071 of them, 200 MiB of kernel memory). Student code
    needs no terminal: there is no ptmx, no devpts, no tty and no console (``--dev`` binds the host's
    terminal there when bubblewrap runs on one).
    """
    args = ["--perms", "0755", "--size", str(DEV_BYTES), "--tmpfs", "/dev"]
    for node in DEV_NODES:
        args += ["--dev-bind", f"/dev/{node}", f"/dev/{node}"]
    for name, target in DEV_LINKS.items():
        args += ["--symlink", target, f"/dev/{name}"]
    return [
        *args,
        "--perms",
        "1777",
        "--size",
        str(SHM_BYTES),
        "--tmpfs",
        "/dev/shm",
        "--mqueue",
        "/dev/mqueue",
        "--remount-ro",
        "/dev",
    ]


def sandbox_command(
    setup: BwrapSetup,
    inner: list[str],
    *,
    scratch_bytes: int,
    grader_files: dict[str, Path],
    packages: tuple[str, ...] = WORKER_PACKAGES,
    seccomp_fd: int | None = None,
) -> list[str]:
    """The full bubblewrap command line that runs ``inner`` confined.

    ``grader_files`` maps a name under /opt/grader to the host file bound there;
    ``seccomp_fd`` is a descriptor bubblewrap reads the filter from (:func:`filter_pipe`).
    """
    mounts = Mounts()
    system_mounts(mounts)
    mounts.raw("--proc", "/proc", made="/proc")
    mounts.raw(*dev_args(), made="/dev")
    # The scratch space first: the Python installation may itself live under /tmp,
    # and its binds must land on top of the tmpfs, not under it.
    mounts.raw("--perms", "1777", "--size", str(int(scratch_bytes)), "--tmpfs", SANDBOX_SCRATCH, made=SANDBOX_SCRATCH)
    python_mounts(mounts, packages)
    for name, host in grader_files.items():
        mounts.ro_bind(str(Path(host).resolve()), f"{SANDBOX_GRADER_DIR}/{name}")
    filtered = ["--seccomp", str(seccomp_fd)] if seccomp_fd is not None else []
    return [
        setup.path,
        *namespace_args(setup.as_root, setup.disable_userns),
        *mounts.args,
        *filtered,
        "--chdir",
        SANDBOX_SCRATCH,
        "--as-pid-1",
        "--",
        *inner,
    ]
