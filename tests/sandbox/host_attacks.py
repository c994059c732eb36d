"""A submission's hold on the host's ptys and disk, attacked and measured from the host.

Shared by ``tests/sandbox/test_host_resources.py`` and the script it runs as root without bubblewrap
(a Python every user can read, in a process of its own), as :mod:`tests.sandbox.socket_attacks` is:
:data:`STUDENT` is the submission, :func:`attack` calls one of its functions in a launcher and measures
the host while the worker still holds what it made.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

from grader.sandbox import SandboxLauncher
from grader.sandbox.limits import Limits
from grader.worker import runtime
from grader.worker.client import WorkerProcess

FILE_SIZE_MB = 16  # RLIMIT_FSIZE of the worker, the default
ASK_MB = 64  # what each call asks of the disk: four times the limit
PTYS = 4  # enough to tell whether a submission gets ptys at all

STUDENT = r'''
import ctypes, errno, os, struct

LIBC = ctypes.CDLL(None, use_errno=True)
LIBC.fallocate.argtypes = [ctypes.c_int, ctypes.c_int, ctypes.c_longlong, ctypes.c_longlong]
LIBC.ioctl.argtypes = [ctypes.c_int, ctypes.c_ulong, ctypes.c_char_p]
HELD = []


def _name(exc_errno):
    return errno.errorcode.get(exc_errno, str(exc_errno))


def ptys(n):
    """Open ``n`` pseudo-terminals (through /dev/ptmx, and through the devpts instance's own ptmx) and keep
    them while the worker lives; what opened, and what /dev holds."""
    seen = {"opened": 0, "dev": sorted(os.listdir("/dev"))}
    try:
        for _ in range(n):
            HELD.append(os.openpty())
            seen["opened"] += 1
        seen["openpty"] = "opened"
    except OSError as exc:
        seen["openpty"] = _name(exc.errno)
    try:
        HELD.append(os.open("/dev/pts/ptmx", os.O_RDWR | os.O_NOCTTY))
        seen["opened"] += 1
        seen["pts/ptmx"] = "opened"
    except OSError as exc:
        seen["pts/ptmx"] = _name(exc.errno)
    try:
        os.close(os.open("/dev/planted", os.O_CREAT | os.O_WRONLY, 0o666))
        seen["dev writable"] = True
    except OSError:
        seen["dev writable"] = False
    return seen


def _fallocate(mode, length):
    return "ok" if LIBC.fallocate(1, mode, 0, length) == 0 else _name(ctypes.get_errno())


def _ioctl(request, length):
    # struct space_resv: l_type, l_whence (SEEK_SET), l_start, l_len, l_sysid, l_pid, l_pad[4]
    argument = struct.pack("=hh4xqqiI16x", 0, 0, 0, length, 0, 0)
    return "ok" if LIBC.ioctl(1, request, argument) == 0 else _name(ctypes.get_errno())


def _call(function, *args):
    try:
        function(*args)
        return "ok"
    except OSError as exc:
        return _name(exc.errno)


def _copy(length):
    os.pwrite(1, b"x", 0)  # a byte of the capture itself, copied within its file system
    return _call(os.copy_file_range, 1, 1, 1, 0, length)


def _splice(length):
    read, write = os.pipe()
    os.write(write, b"x")
    return _call(os.splice, read, 1, 1, None, length)


def disk(length):
    """Ask for ``length`` bytes of the output capture (fd 1: a file on the host's disk, opened for writing)
    in every way a file gets blocks; what each call answered and the blocks fd 1 held after it."""
    calls = {
        "fallocate(KEEP_SIZE)": lambda: _fallocate(0x01, length),
        "fallocate(ZERO_RANGE|KEEP_SIZE)": lambda: _fallocate(0x11, length),
        "fallocate(UNSHARE_RANGE|KEEP_SIZE)": lambda: _fallocate(0x41, length),
        "fallocate(ZERO_RANGE)": lambda: _fallocate(0x10, length),
        "fallocate(0x80)": lambda: _fallocate(0x80, length),  # FALLOC_FL_WRITE_ZEROES (Linux 6.17)
        "ioctl(FS_IOC_RESVSP64)": lambda: _ioctl(0x4030582A, length),
        "ioctl(FS_IOC_RESVSP)": lambda: _ioctl(0x40305828, length),
        "ioctl(FS_IOC_ZERO_RANGE)": lambda: _ioctl(0x40305839, length),
        "posix_fallocate within the limit": lambda: _call(os.posix_fallocate, 1, 0, 1 << 20),
        "posix_fallocate": lambda: _call(os.posix_fallocate, 1, 0, length),
        "ftruncate": lambda: _call(os.ftruncate, 1, length),
        "pwrite past the limit": lambda: _call(os.pwrite, 1, b"x", length),
        "copy_file_range past the limit": lambda: _copy(length),
        "splice past the limit": lambda: _splice(length),
    }
    seen = {}
    for name, attempt in calls.items():
        seen[name] = [attempt(), os.fstat(1).st_blocks * 512]
        os.ftruncate(1, 0)  # frees blocks past the end too: the next call starts from nothing
    for attempt in calls.values():
        attempt()  # again, kept: the host measures what the capture holds while the worker lives
    return seen
'''


def pty_count() -> int:
    """Ptys in use on this machine, in every devpts instance (the kernel's global count)."""
    return int(Path("/proc/sys/kernel/pty/nr").read_text())


def _call(worker: WorkerProcess, function: str, *args) -> dict:
    reply = worker.request(
        {
            "op": "call",
            "module": "host",
            "function": function,
            "args": runtime.encode(list(args)),
            "kwargs": runtime.encode({}),
        },
        timeout=60,
    )
    return {"value": runtime.decode(reply["value"])} if reply.get("ok") else {"error": reply}


def attack(directory: Path, what: str, **options) -> dict:
    """Run one attack (``ptys`` or ``disk``) in a fresh launcher of ``options``; what the submission saw
    and what the host held meanwhile (the ptys' global count; the capture file's blocks)."""
    directory = Path(directory)
    directory.mkdir(parents=True, exist_ok=True)
    (directory / "host.py").write_text(STUDENT)
    # The modes' variables, as a command line reads them (grader/options.py): the launcher's own settings.
    options.setdefault("cgroup_mode", "off" if os.environ.get("GRADER_NO_CGROUPS") else "auto")
    options.setdefault("bubblewrap", not os.environ.get("GRADER_NO_BWRAP"))
    with SandboxLauncher(Limits(file_size_mb=FILE_SIZE_MB), **options) as launcher:
        found = {"describe": launcher.describe()}
        worker = WorkerProcess(directory, launcher)
        worker.start()
        try:
            if what == "ptys":
                before = pty_count()
                found.update(_call(worker, "ptys", PTYS))
                found["ptys_held"] = pty_count() - before  # other users' ptys come and go: a hint only
            else:
                found.update(_call(worker, "disk", ASK_MB << 20))
                # Measured outside: the capture file as the grader holds it.
                found["capture_blocks"] = os.fstat(worker._output.fileno()).st_blocks * 512
        finally:
            worker.kill()
    return found


SCRIPT = """
import json, sys
from tests.sandbox.host_attacks import attack
print(json.dumps(attack(sys.argv[1], sys.argv[2], sandbox="auto")))
"""


def parse(stdout: str) -> dict:
    return json.loads(stdout.strip().splitlines()[-1])
