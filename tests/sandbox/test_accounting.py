"""A submission's memory and processes, as the kernel accounts them (issue 22, item 1).

Per-process limits (RLIMIT_AS, RLIMIT_NPROC) and tmpfs sizes bound no sum: memfds,
System V segments and children each escaped a 256 MiB limit by gigabytes. These tests
measure the host from outside the sandbox (``Shmem`` of /proc/meminfo; the worker's
processes) while the worker holds what it managed to take.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from grader.sandbox import SandboxLauncher, cgroups
from grader.sandbox.limits import Limits
from grader.worker import runtime
from grader.worker.client import WorkerProcess
from tests.sandbox.common import SETUP, needs_bwrap

HIERARCHY, NO_CGROUPS = cgroups.detect()


@pytest.fixture(params=["cgroup", "fallback"])
def mode(request, monkeypatch):
    """Both ways a sandboxed submission is bounded: its own cgroup, or (no usable controllers)
    the fallback: no memfd or System V shared memory, few processes."""
    if request.param == "cgroup" and HIERARCHY is None:
        pytest.skip(f"no usable cgroup controllers here: {NO_CGROUPS}")
    if request.param == "fallback":
        if SETUP is None or not SETUP.seccomp:
            pytest.skip("the fallback needs the seccomp filter")
        monkeypatch.setattr(cgroups, "detect", lambda enabled=True: (None, "cgroups turned off (--cgroups off)"))
    return request.param


LIMIT_MB = 256
NOISE = 32 * 2**20
# Each takes up to 640 MiB (2.5 x the limit) in 64 MiB steps, and says how far it got.
GREEDY = """
import ctypes, mmap, os

STEP = 64 << 20
TOTAL = 640 << 20

def memfds():
    held, fds = 0, []
    size = 8 << 20  # under the file size limit (RLIMIT_FSIZE)
    try:
        while held < TOTAL:
            fd = os.memfd_create("x")
            os.ftruncate(fd, size)
            with mmap.mmap(fd, size) as m:  # unmapped after: outside the address space limit
                for i in range(0, size, 4096):
                    m[i] = 1
            fds.append(fd)
            held += size
    except OSError:
        pass
    globals()["_keep"] = fds
    return held

def sysv():
    libc = ctypes.CDLL(None, use_errno=True)
    libc.shmat.restype = ctypes.c_void_p
    held = 0
    while held < TOTAL:
        ident = libc.shmget(0, STEP, 0o1600)  # IPC_PRIVATE, IPC_CREAT | 0600
        if ident < 0:
            break
        address = libc.shmat(ident, None, 0)
        if address in (None, ctypes.c_void_p(-1).value):
            break
        ctypes.memset(address, 1, STEP)
        libc.shmdt(ctypes.c_void_p(address))  # the segment stays, outside any address space
        held += STEP
    return held

def files(n):
    # Empty files: no bytes, but an inode and a dentry of kernel memory each (~1 KB).
    made = 0
    try:
        for i in range(n):
            os.close(os.open("/tmp/f%d" % i, os.O_CREAT | os.O_WRONLY, 0o600))
            made += 1
    except OSError:
        pass
    return made

def children():
    # Each child holds 30 MiB of its own, under a 256 MiB address-space limit each.
    pids = []
    for _ in range(20):
        pid = os.fork()
        if pid == 0:
            block = bytearray(30 << 20)
            for i in range(0, len(block), 4096):
                block[i] = 1
            os.write(1, b"child holds\\n")
            import time
            time.sleep(60)
            os._exit(0)
        pids.append(pid)
    import time
    time.sleep(3)
    return len(pids)
"""


def slab() -> int:
    """The host's kernel object caches (inodes, dentries ...), from /proc/meminfo."""
    for line in Path("/proc/meminfo").read_text().splitlines():
        if line.startswith("Slab:"):
            return int(line.split()[1]) * 1024
    raise AssertionError("no Slab in /proc/meminfo")


def shmem() -> int:
    """The host's shared memory (tmpfs, memfd, System V), from /proc/meminfo."""
    for line in Path("/proc/meminfo").read_text().splitlines():
        if line.startswith("Shmem:"):
            return int(line.split()[1]) * 1024
    raise AssertionError("no Shmem in /proc/meminfo")


def memory_of_tag(tag: str) -> int:
    """Memory of every host process started by the launcher with ``tag`` (proportional set
    size: pages a fork shares with its parent are counted once)."""
    total = 0
    for name in os.listdir("/proc"):
        if not name.isdigit():
            continue
        try:
            if tag.encode() not in Path(f"/proc/{name}/cmdline").read_bytes():
                continue
            rollup = Path(f"/proc/{name}/smaps_rollup").read_text()
        except OSError:
            continue
        for line in rollup.splitlines():
            if line.startswith(("Pss_Anon:", "Pss_Shmem:")):
                total += int(line.split()[1]) * 1024
    return total


def start(launcher, tmp_path: Path) -> WorkerProcess:
    (tmp_path / "greedy.py").write_text(GREEDY)
    worker = WorkerProcess(tmp_path, launcher)
    worker.start()
    reply = worker.request({"op": "import", "module": "greedy"}, timeout=30)
    assert reply.get("ok"), reply
    return worker


@needs_bwrap
@pytest.mark.parametrize("function", ["memfds", "sysv"])
def test_shared_memory_counts_against_the_submissions_limit(tmp_path, function, mode):
    # Before: 640 MiB held through 10 memfds (VmPeak 100 MB, so no limit event either), or
    # in System V segments, under a 256 MiB limit.
    with SandboxLauncher(Limits(memory_mb=LIMIT_MB), sandbox="require") as launcher:
        before = shmem()
        worker = start(launcher, tmp_path)
        try:
            try:
                reply = worker.request(
                    {
                        "op": "call",
                        "module": "greedy",
                        "function": function,
                        "args": runtime.encode([]),
                        "kwargs": runtime.encode({}),
                    },
                    timeout=60,
                )
            except Exception as exc:  # noqa: BLE001 - killed by the kernel at its limit: what we want
                reply = {"died": repr(exc)}
            # Measured outside, while the worker (if alive) holds it: an unmapped memfd or a
            # detached System V segment is in no process's memory, only in the host's Shmem.
            held = shmem() - before
        finally:
            worker.kill()
        # (the host's Shmem also moves with everything else running here: 32 MiB of slack)
        assert held <= cgroups.memory_bound(LIMIT_MB) + NOISE, f"the sandbox holds {held / 2**20:.0f} MiB: {reply}"
        if mode == "cgroup":
            assert HIERARCHY.kind in launcher.describe()
            # The kernel's refusal is the submission's memory limit event, whatever VmPeak showed.
            (exit,) = launcher.take_history(tmp_path.resolve())
            assert launcher.limits.near_memory_limit(exit.peak_memory), exit
        else:
            assert "no cgroup" in launcher.describe() and reply.get("value") == 0, reply


@needs_bwrap
def test_forked_children_count_together(tmp_path, mode):
    # Before: 14 children of 150 MB each under a 256 MiB RLIMIT_AS: 2.1 GB.
    with SandboxLauncher(Limits(memory_mb=LIMIT_MB), sandbox="require") as launcher:
        worker = start(launcher, tmp_path)
        try:
            try:
                worker.request(
                    {
                        "op": "call",
                        "module": "greedy",
                        "function": "children",
                        "args": runtime.encode([]),
                        "kwargs": runtime.encode({}),
                    },
                    timeout=60,
                )
            except Exception:  # noqa: BLE001 - killed by the kernel at its limit: what we want
                pass
            held = memory_of_tag(launcher.tag)
        finally:
            worker.kill()
        assert held <= cgroups.memory_bound(LIMIT_MB) + NOISE, f"the sandbox's processes hold {held / 2**20:.0f} MiB"


@needs_bwrap
def test_kernel_memory_of_empty_files_counts_against_the_limit(tmp_path, mode):
    # Before: 1.5 M empty files in /tmp and /dev/shm cost 1.3 GB of kernel memory in 15 s; here
    # 700,000 files (about 690 MiB of inodes and dentries) under a 256 MiB limit.
    if mode == "fallback":
        pytest.skip(
            "without a cgroup, the kernel memory of inodes is not bounded by a size (the threat "
            "model's table says so): bubblewrap's tmpfs takes no nr_inodes"
        )
    with SandboxLauncher(Limits(memory_mb=LIMIT_MB), sandbox="require") as launcher:
        before = slab()
        worker = start(launcher, tmp_path)
        try:
            try:
                reply = worker.request(
                    {
                        "op": "call",
                        "module": "greedy",
                        "function": "files",
                        "args": runtime.encode([700_000]),
                        "kwargs": runtime.encode({}),
                    },
                    timeout=120,
                )
            except Exception as exc:  # noqa: BLE001 - killed by the kernel at its limit: what we want
                reply = {"died": repr(exc)}
            held = slab() - before
        finally:
            worker.kill()
        assert held <= cgroups.memory_bound(LIMIT_MB) + NOISE, f"{held / 2**20:.0f} MiB of kernel memory: {reply}"
        assert reply.get("value") != 700_000, reply
        (exit,) = launcher.take_history(tmp_path.resolve())
        assert launcher.limits.near_memory_limit(exit.peak_memory), exit


def test_a_cgroup_half_made_is_removed(tmp_path, monkeypatch):
    """A submission whose cgroup cannot be finished (a limit refused, the second hierarchy missing)
    leaves no directory behind: each would stay on the machine, one per failed submission."""
    memory, pids = tmp_path / "memory", tmp_path / "pids"
    memory.mkdir()
    pids.mkdir()
    hierarchy = cgroups.Hierarchy("cgroup v1", (memory, pids))

    def refused(path, value):
        raise PermissionError(f"{path}: not permitted")

    monkeypatch.setattr(cgroups, "_write", refused)
    with pytest.raises(PermissionError):
        cgroups.SubmissionCgroup(hierarchy, "grader-1/s1", 256 << 20, 8)
    assert not (memory / "grader-1" / "s1").exists() and not (pids / "grader-1" / "s1").exists()

    monkeypatch.undo()
    (tmp_path / "gone").write_text("a file where the pids hierarchy's folder should be")
    broken = cgroups.Hierarchy("cgroup v1", (memory, tmp_path / "gone"))
    with pytest.raises(OSError):
        cgroups.SubmissionCgroup(broken, "s2", 256 << 20, 8)
    assert not (memory / "s2").exists()
