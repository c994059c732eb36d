"""Nothing of one student's reaches the next; the seccomp filter denies what a numpy exercise never needs."""

from __future__ import annotations

import errno
import json
import os
import shutil
import struct
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import pytest

from grader.core.course import load_course
from grader.sandbox import SandboxLauncher, seccomp
from grader.sandbox.bwrap import SHM_BYTES
from grader.sandbox.limits import Limits
from grader.worker.client import WorkerProcess
from tests.helpers import ROOT
from tests.sandbox.common import SETUP, SPACE, call, needs_bwrap
from tests.toy_course import make_toy_course

LEAVES_SECRETS = ROOT / "tests" / "data" / "hostile" / "next_student" / "leaves_secrets.py"
ARCH = seccomp.native_arch()
needs_filter = pytest.mark.skipif(
    SETUP is None or not SETUP.seccomp,
    reason=f"no seccomp filter here: {SETUP.no_seccomp if SETUP else 'no bubblewrap'}",
)


@pytest.fixture()
def limits(tmp_path):
    return Limits.from_course(load_course(make_toy_course(tmp_path / "course")))


def started(launcher, directory: Path, source: Path | str, module: str) -> WorkerProcess:
    directory.mkdir()
    text = source.read_text() if isinstance(source, Path) else source
    (directory / f"{module}.py").write_text(text)
    worker = WorkerProcess(directory, launcher)
    worker.start()
    return worker


# -- item: the next student -----------------------------------------------------------
@needs_bwrap
@pytest.mark.parametrize(
    "filtered", [pytest.param(True, marks=needs_filter), False], ids=["seccomp filter", "without the filter"]
)
def test_the_next_student_finds_nothing_the_last_one_left(limits, tmp_path, filtered):
    secret = f"secret-{os.getpid()}-{time.time_ns()}"
    options = {} if filtered else {"seccomp": False}
    with SandboxLauncher(limits, sandbox="require", **options) as launcher:
        first = started(launcher, tmp_path / "first", LEAVES_SECRETS, "leaves_secrets")
        try:
            left = call(first, "leaves_secrets", "leave", secret)
        finally:
            first.kill()
        second = started(launcher, tmp_path / "second", LEAVES_SECRETS, "leaves_secrets")
        try:
            found = call(second, "leaves_secrets", "find")
        finally:
            second.kill()
        replaced = launcher.zygotes_started
    assert [channel for channel, text in found.items() if secret in text] == [], found
    shared = ("user keyring", "user session keyring", "message queue")
    if filtered:
        # Denied outright: nothing to clean, and the zygote carries on.
        assert all("Operation not permitted" in left[c] for c in shared), left
    else:
        # Stored, then cleaned by the zygote before the next worker.
        assert all(left[c] == "stored" for c in shared), left
    assert left["abstract socket"] == left["/tmp/grader-secret"] == "stored"
    assert replaced == 1  # cleaned in place: the same zygote forked both workers


# -- the filter ---------------------------------------------------------------------------
def run_filter(program: bytes, arch: int, nr: int, arg0: int = 0, arg1: int = 0) -> int:
    """What the classic BPF ``program`` returns for one system call (the kernel's semantics)."""
    code = [struct.unpack_from("=HBBI", program, i) for i in range(0, len(program), 8)]
    data = struct.pack("=iIQ6Q", nr, arch, 0, arg0, arg1, 0, 0, 0, 0)
    pc = acc = 0
    while True:
        op, jt, jf, k = code[pc]
        if op == 0x20:
            acc, pc = struct.unpack_from("=I", data, k)[0], pc + 1
        elif op == 0x54:  # accumulator &= k
            acc, pc = acc & k, pc + 1
        elif op == 0x05:  # jump always
            pc += 1 + k
        elif op in (0x15, 0x35, 0x45):
            taken = acc == k if op == 0x15 else acc >= k if op == 0x35 else bool(acc & k)
            pc += 1 + (jt if taken else jf)
        else:
            assert op == 0x06, f"unexpected opcode {op:#x}"
            return k


EPERM = seccomp.RET_ERRNO | errno.EPERM
ENOSYS = seccomp.RET_ERRNO | errno.ENOSYS
EAFNOSUPPORT = seccomp.RET_ERRNO | errno.EAFNOSUPPORT
EOPNOTSUPP = seccomp.RET_ERRNO | errno.EOPNOTSUPP
ENOTTY = seccomp.RET_ERRNO | errno.ENOTTY
SIGCHLD = 17


@pytest.mark.parametrize("arch", [seccomp.X86_64, seccomp.AARCH64], ids=lambda a: a.name)
def test_the_filter_program_allows_exactly_its_list(arch):
    program = seccomp.program(arch)
    assert len(program) % 8 == 0 and len(program) // 8 < 4096  # the kernel's limit

    def verdict(name_or_nr, arg0=0, arg1=0, audit=arch.audit):
        if isinstance(name_or_nr, str):
            name_or_nr = arch.numbers.get(name_or_nr, arch.allowed.get(name_or_nr))
        return run_filter(program, audit, name_or_nr, arg0, arg1)

    for name in seccomp.DENIED:
        if name in arch.numbers:
            assert verdict(name) == EPERM, name
    named = {arch.numbers[n] for n in (*seccomp.DENIED, "clone", "clone3", "socket", "socketpair") if n in arch.numbers}
    allowed = set(arch.allowed.values()) - named
    assert {verdict(nr) for nr in allowed} == {seccomp.RET_ALLOW}
    # Deny by default: every other number, known or not (yet), answers ENOSYS.
    assert {verdict(nr) for nr in set(range(1024)) - allowed - named} == {ENOSYS}
    assert verdict(arch.allowed["memfd_create"]) == seccomp.RET_ALLOW
    unaccounted = seccomp.program(arch, seccomp.UNACCOUNTED)
    for name in seccomp.UNACCOUNTED:
        assert run_filter(unaccounted, arch.audit, arch.allowed[name], 0) == EPERM, name
    # fork and threads clone without namespace flags; any CLONE_NEW* flag is refused.
    assert verdict("clone", SIGCHLD) == seccomp.RET_ALLOW
    assert verdict("clone", 0x3D0F00) == seccomp.RET_ALLOW  # pthread_create's flags
    for flag in (0x00020000, 0x02000000, 0x04000000, 0x08000000, 0x10000000, 0x20000000, 0x40000000):
        assert verdict("clone", flag | SIGCHLD) == EPERM, hex(flag)
    assert verdict("clone3") == ENOSYS  # its flags are out of the filter's sight: glibc falls back to clone
    # Sockets by family: none admitted unless listed, then exactly those (the family's low 32 bits: an int).
    unix = seccomp.program(arch, families=("AF_UNIX",))
    for syscall in ("socket", "socketpair"):
        for family in range(64):
            assert verdict(syscall, family) == EAFNOSUPPORT, (syscall, family)
            expected = seccomp.RET_ALLOW if family == 1 else EAFNOSUPPORT
            assert run_filter(unix, arch.audit, arch.numbers[syscall], family) == expected, (syscall, family)
        assert run_filter(unix, arch.audit, arch.numbers[syscall], (40 << 32) | 1) == seccomp.RET_ALLOW
    with pytest.raises(ValueError):
        seccomp.program(arch, families=("AF_VSOCK",))
    # fallocate: mode 0 only (posix_fallocate), the mode's low 32 bits (an int); every flag refused.
    for mode in (1, 2, 3, 8, 0x10, 0x11, 0x20, 0x40, 0x41, 0x80, 0x100, 1 << 31):
        assert verdict("fallocate", 3, mode) == EOPNOTSUPP, hex(mode)
    assert verdict("fallocate", 3, 0) == verdict("fallocate", 3, 1 << 32) == seccomp.RET_ALLOW
    # ioctl: every request of type 'X' refused (FS_IOC_RESVSP, _RESVSP64, _UNRESVSP, _UNRESVSP64, _ZERO_RANGE,
    # FIFREEZE...), what Python asks allowed (TCGETS, FIOCLEX, FIONBIO, TIOCGWINSZ, FIONREAD).
    for request in (0x40305828, 0x40305829, 0x4030582A, 0x4030582B, 0x40305839, 0xC0045877, 0x5800, 0x80045800):
        assert verdict("ioctl", 1, request) == ENOTTY, hex(request)
    for request in (0x5401, 0x5451, 0x5421, 0x5413, 0x541B, 0x40305928, 0x4030592A, (0x58 << 40) | 0x5401):
        assert verdict("ioctl", 1, request) == seccomp.RET_ALLOW, hex(request)
    assert verdict(arch.numbers["mount"], audit=0x40000003) == seccomp.RET_KILL_PROCESS  # i386 numbering
    if arch.x32:
        assert verdict(seccomp.X32_SYSCALL_BIT | arch.numbers["unshare"]) == ENOSYS


FILTER_PROBE = '''
import ctypes, errno, os, threading
import numpy as np

LIBC = ctypes.CDLL(None, use_errno=True)
N = %(numbers)r


def _errno(name, *args):
    ctypes.set_errno(0)
    result = LIBC.syscall(N[name], *args)
    return 0 if result >= 0 else ctypes.get_errno()


def denied():
    """What each call answers; every argument is harmless, and each call answers
    something other than EPERM when it is allowed."""
    return {
        "unshare(CLONE_NEWUSER)": _errno("unshare", 0x10000000),
        "unshare(CLONE_NEWNS)": _errno("unshare", 0x00020000),
        "setns": _errno("setns", -1, 0),
        "keyctl": _errno("keyctl", 0, ctypes.c_long(-4), 0),
        "add_key": _errno("add_key", b"user", b"k", b"v", 1, ctypes.c_long(-4)),
        "mq_open": _errno("mq_open", b"q", os.O_CREAT | os.O_RDWR, 0o600, None),
        "ptrace(ATTACH)": _errno("ptrace", 16, 999999, 0, 0),
        "process_vm_readv": _errno("process_vm_readv", 999999, None, 0, None, 0, 0),
        "bpf": _errno("bpf", 9999, None, 0),
        "perf_event_open": _errno("perf_event_open", None, 0, -1, -1, 0),
        "io_uring_setup": _errno("io_uring_setup", 0, None),
        "clone3": _errno("clone3", None, 0),
        "socket(AF_VSOCK)": _errno("socket", 40, 1, 0),
        "socket(AF_NETLINK)": _errno("socket", 16, 3, 0),
        "socket(AF_INET)": _errno("socket", 2, 1, 0),
    }


def allowed():
    pid = os.fork()
    if pid == 0:
        os._exit(7)
    forked = os.waitstatus_to_exitcode(os.waitpid(pid, 0)[1])
    box = []
    thread = threading.Thread(target=lambda: box.append(np.linalg.solve(np.eye(3) * 2, np.ones(3)).sum()))
    thread.start()
    thread.join()
    return {"fork": forked, "thread": float(box[0])}
'''


def filter_probe() -> str:
    return FILTER_PROBE % {"numbers": ARCH.numbers}


def refusal(name: str) -> int:
    """What the filter answers for a call of the probe's ``denied()``."""
    return errno.ENOSYS if name == "clone3" else errno.EAFNOSUPPORT if name.startswith("socket(") else errno.EPERM


@needs_filter
def test_inside_the_sandbox_the_filter_denies_and_numpy_still_works(limits, tmp_path):
    with SandboxLauncher(limits, sandbox="require") as launcher:
        assert "seccomp filter" in launcher.describe() and "no seccomp" not in launcher.describe()
        worker = started(launcher, tmp_path / "probe", filter_probe(), "probe")
        try:
            answers = call(worker, "probe", "denied")
            works = call(worker, "probe", "allowed")
        finally:
            worker.kill()
    expected = {name: refusal(name) for name in answers}
    assert {k: errno.errorcode.get(v, v) for k, v in answers.items()} == {
        k: errno.errorcode[v] for k, v in expected.items()
    }
    assert works == {"fork": 7, "thread": 1.5}


# -- the other mode: an ordinary user ----------------------------------------------------
def _closed_ancestors(paths: list[Path]) -> dict[Path, set[str]]:
    """Directories on the way to ``paths`` that others may not traverse, with the entries needed below them."""
    closed: dict[Path, set[str]] = {}
    for path in paths:
        for parent in reversed(path.parents):
            if parent != path and not os.stat(parent).st_mode & 0o001:
                child = path.relative_to(parent).parts[0]
                closed.setdefault(parent, set()).add(child)
                break
    return closed


def unprivileged(code: str, uid: int = 65534) -> subprocess.CompletedProcess:
    """Run ``code`` with this interpreter and repository as an ordinary user (``uid``).

    The interpreter may live under a directory only root may enter (/root/.pyenv):
    in a private mount namespace that directory is replaced by a world-readable
    tmpfs holding bind mounts of just the entries needed, then ``setpriv`` drops root.
    """
    needed = [
        Path(os.path.realpath(sys.base_prefix)),
        Path(sys.prefix),
        Path(os.path.realpath(sys.executable)),
        ROOT,
        Path(tempfile.gettempdir()),
    ]
    lines = ["set -e", "stash=$(mktemp -d)"]
    for i, (directory, children) in enumerate(sorted(_closed_ancestors(needed).items())):
        lines += [
            f"mkdir $stash/{i}",
            f"mount --bind '{directory}' $stash/{i}",
            f"mount -t tmpfs -o mode=0755 tmpfs '{directory}'",
        ]
        for child in sorted(children):
            kind = "mkdir" if (directory / child).is_dir() else "touch"
            lines += [f"{kind} '{directory / child}'", f"mount --bind $stash/{i}/'{child}' '{directory / child}'"]
    lines.append(
        f"exec setpriv --reuid={uid} --regid={uid} --clear-groups --inh-caps=-all env -i HOME=/tmp "
        f"PATH=/usr/bin:/bin PYTHONPATH='{ROOT}' '{sys.executable}' -c \"$1\""
    )
    return subprocess.run(
        ["unshare", "--mount", "--propagation", "private", "--", "sh", "-c", "\n".join(lines), "sh", code],
        capture_output=True,
        text=True,
        timeout=120,
    )


UNPRIVILEGED_RUN = """
import json, os, sys, tempfile
from pathlib import Path
from grader.sandbox import SandboxLauncher, probe
from grader.sandbox.limits import Limits
from grader.worker.client import WorkerProcess
from tests.sandbox.common import call

setup, why = probe()
if setup is None:
    print(json.dumps({"skip": why}))
    sys.exit(0)
report = {"as_root": setup.as_root, "uid": os.getuid()}
with tempfile.TemporaryDirectory() as tmp, SandboxLauncher(Limits(memory_mb=512), sandbox="require") as launcher:
    report["describe"] = launcher.describe()
    for name, source, module in [("first", %(secrets)r, "leaves_secrets"), ("second", %(secrets)r, "leaves_secrets"),
                                 ("probe", %(probe)r, "probe"), ("space", %(space)r, "space")]:
        (Path(tmp) / name).mkdir()
        (Path(tmp) / name / (module + ".py")).write_text(source)
    worker = WorkerProcess(Path(tmp) / "first", launcher); worker.start()
    report["left"] = call(worker, "leaves_secrets", "leave", "the-secret"); worker.kill()
    worker = WorkerProcess(Path(tmp) / "second", launcher); worker.start()
    report["found"] = call(worker, "leaves_secrets", "find"); worker.kill()
    worker = WorkerProcess(Path(tmp) / "probe", launcher); worker.start()
    report["denied"] = call(worker, "probe", "denied")
    report["allowed"] = call(worker, "probe", "allowed"); worker.kill()
    worker = WorkerProcess(Path(tmp) / "space", launcher); worker.start()
    report["space"] = call(worker, "space", "space"); worker.kill()
print(json.dumps(report))
"""


@pytest.mark.skipif(
    os.geteuid() != 0 or not (shutil.which("unshare") and shutil.which("setpriv")) or ARCH is None,
    reason="needs root (to become an ordinary user), unshare and setpriv; as an ordinary user "
    "every other sandbox test already runs in this mode",
)
def test_as_an_ordinary_user_the_sandbox_isolates_and_filters_too():
    code = UNPRIVILEGED_RUN % {"secrets": LEAVES_SECRETS.read_text(), "probe": filter_probe(), "space": SPACE}
    proc = unprivileged(code)
    assert proc.returncode == 0, proc.stderr[-3000:]
    report = json.loads(proc.stdout.strip().splitlines()[-1])
    if "skip" in report:
        pytest.skip(f"bubblewrap does not work for an ordinary user here: {report['skip']}")
    assert report["uid"] == 65534 and report["as_root"] is False
    assert "user namespace" in report["describe"] and "seccomp filter" in report["describe"], report["describe"]
    assert [c for c, text in report["found"].items() if "the-secret" in text] == [], report["found"]
    assert {k: v for k, v in report["denied"].items() if v != refusal(k)} == {}
    assert report["allowed"] == {"fork": 7, "thread": 1.5}
    # bubblewrap's /dev belongs to the user here: it is remounted read-only, /dev/shm is bounded.
    assert report["space"]["dev"] is False and 0 < report["space"]["shm"] <= SHM_BYTES, report["space"]
