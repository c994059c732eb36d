"""Each submission in a cgroup of its own: memory and processes as the kernel accounts them.

Per-process limits (``RLIMIT_AS``, ``RLIMIT_NPROC``) and tmpfs sizes do not add up to
a bound on what one submission takes from the machine: fourteen forked children
each get their own address space, a memfd or a System V segment is shared memory no
process's ``VmPeak`` shows, empty files cost kernel memory and no bytes. A memory
cgroup charges all of it (anonymous pages, page cache and shmem, so memfd, SysV shm
and tmpfs files, and kernel memory: inodes, dentries, page tables) to the cgroup of the
task that allocated it; a pids cgroup counts every process and thread.

Two kinds, chosen by :func:`detect` where the grader runs:

- ``cgroup v2``: one directory with ``memory.max``, ``memory.swap.max`` and ``pids.max``,
  usable where this process's v2 cgroup delegates the memory and pids controllers;
- ``cgroup v1``: a directory in the ``memory`` hierarchy (``memory.limit_in_bytes``, and
  ``memory.memsw.limit_in_bytes`` where swap is accounted), one in ``pids``, and one in ``devices``
  where that hierarchy is mounted and ours to write.

Ptys: a pty is a slot of the host's global pool (``kernel.pty.max``) whose buffers no memory cgroup
charges, counted from the ``open`` of a ``ptmx``; without bubblewrap the worker sees the host's
``/dev/ptmx``, and the seccomp filter sees no path. The v1 ``devices`` controller refuses the open
itself (``EPERM``), in every devpts instance: :data:`PTY_DEVICES` are denied. v2 has no such file (its
device control is a BPF program attached to the cgroup; not done here): there, without bubblewrap, only
the zygote's mount namespace hides them (``zygote.hide_ptys``, root with ``CAP_SYS_ADMIN``), else
descriptors times processes bound them.

CPU: a submission's processes share one scheduling weight, the weight of one process of the grader's
own (``cpu.shares`` in v1's ``cpu`` hierarchy, ``cpu.weight`` in v2): however many of them are runnable,
together they get the CPU one process would (:func:`process_weight`). ``RLIMIT_CPU`` bounds each
process's total, not a share: 30 forked spinners each stay under it. Where the cpu controller is not
there, memory and processes are bounded as before and the launcher says the CPU is not shared out.

Socket buffers: v2 charges them to ``memory.current`` like any memory. v1 charges a Unix socket's
buffers as kernel memory, but TCP's only to a counter of their own, and only once
``memory.kmem.tcp.limit_in_bytes`` is set (until then only the machine-wide ``tcp_mem`` bounds
them: 824 MiB queued on the sandbox's loopback under a bound of 384 MiB). So in v1 the bound is
split: :data:`SOCKET_BYTES` of it for TCP, the rest for everything else.

Cgroups are made *below this process's own* cgroup (``grader-<pid>/s<n>``), so whatever
limits the grader itself lives under still count the workers too. The launcher moves
the sandbox's processes (bubblewrap and the zygote, which then forks the worker) into a
fresh cgroup before every submission, reads the kernel's figures after it, and removes it.
"""

from __future__ import annotations

import dataclasses
import os
import time
from dataclasses import dataclass
from pathlib import Path

ROOT = Path("/sys/fs/cgroup")
MB = 1024 * 1024
# cgroup v1: the part of a submission's bound its TCP buffers may take. Student code needs no network
# (the seccomp filter refuses AF_INET); this holds where the filter is not there to refuse it.
SOCKET_BYTES = 16 * MB
# cgroup v1 ``devices.deny``: /dev/ptmx and every devpts instance's ptmx (5:2), the pty slaves (majors
# 136-143: /dev/pts/N), and /dev/tty (5:0; no terminal at all, as in bubblewrap's /dev).
PTY_DEVICES = ("c 5:2 rwm", "c 5:0 rwm", *(f"c {major}:* rwm" for major in range(136, 144)))


def memory_bound(memory_mb: float) -> int:
    """The cgroup's memory limit for a submission whose processes each have ``memory_mb``.

    Above ``RLIMIT_AS`` by a quarter (at least 128 MiB): one process that asks for too much
    still gets its ``MemoryError`` from its own limit, as documented, rather than the page
    cache (numpy's own code pages) reclaimed under it until its time limit runs out; the
    cgroup bounds the sum (children, memfd, shared memory, files, kernel memory).
    """
    memory = int(memory_mb * MB)
    return memory + max(memory // 4, 128 * MB)


def _own_paths() -> dict[str, str]:
    """{controller or "": path} of this process, from /proc/self/cgroup ("" is the v2 entry)."""
    found = {}
    try:
        for line in Path("/proc/self/cgroup").read_text().splitlines():
            _, controllers, path = line.split(":", 2)
            for name in controllers.split(",") if controllers else [""]:
                found[name] = path
    except (OSError, ValueError):
        pass
    return found


def _v1_dir(controller: str, own: dict[str, str]) -> Path | None:
    if controller not in own:
        return None
    path = ROOT / controller / own[controller].lstrip("/")
    return path if path.is_dir() else None


def _v2_dir(own: dict[str, str]) -> Path | None:
    if "" not in own:
        return None
    for mount in (ROOT, ROOT / "unified"):
        if (mount / "cgroup.controllers").is_file():
            path = mount / own[""].lstrip("/")
            if path.is_dir():
                return path
    return None


@dataclass(frozen=True)
class Hierarchy:
    """Where this process may make cgroups: ``kind`` ("cgroup v2" or "cgroup v1") and the parents."""

    kind: str
    parents: tuple[Path, ...]  # v2: (dir,); v1: (memory dir, pids dir)
    cpu: Path | None = None  # the cpu controller's parent (v2: parents[0]); None: no CPU share ...
    no_cpu: str = ""  # ... and why not
    devices: Path | None = None  # v1's devices hierarchy, where the submission's cgroup denies the ptys

    @property
    def cpu_parents(self) -> tuple[Path, ...]:
        """Parents of cpu cgroups of their own (v1's cpu hierarchy; in v2 the one directory has it)."""
        return (self.cpu,) if self.cpu is not None and self.kind == "cgroup v1" else ()

    @property
    def devices_parents(self) -> tuple[Path, ...]:
        """Parents of devices cgroups (v1's devices hierarchy, where there is one to write)."""
        return (self.devices,) if self.devices is not None else ()

    @property
    def denies_ptys(self) -> bool:
        """Does each submission's cgroup refuse ptys (cgroup v1 with its ``devices`` hierarchy)?"""
        return self.devices is not None


def _try_parent(parent: Path, files: tuple[str, ...], writes: tuple[tuple[str, str], ...] = ()) -> str:
    """ "" if a child cgroup with ``files`` can be made (``writes`` written) and removed under ``parent``,
    else why not."""
    probe = parent / f"grader-probe-{os.getpid()}"
    try:
        probe.mkdir()
    except OSError as exc:
        return f"cannot create a cgroup in {parent} ({exc.strerror})"
    try:
        missing = [f for f in files if not (probe / f).exists()]
        if missing:
            return f"{parent} has no {', '.join(missing)}"
        for name, value in writes:
            try:
                _write(probe / name, value)
            except OSError as exc:
                return f"cannot write {name} in {parent} ({exc.strerror})"
        return ""
    finally:
        try:
            probe.rmdir()
        except OSError:
            pass


def detect(enabled: bool = True) -> tuple[Hierarchy | None, str]:
    """(hierarchy, "") where per-submission cgroups can be made here, else (None, why not); ``enabled``
    False: none (the grading options' ``cgroups: off``). With the cpu controller where it is there."""
    hierarchy, why = _detect(enabled)
    if hierarchy is None:
        return None, why
    own = _own_paths()
    return _with_devices(_with_cpu(hierarchy, own), own), why


def _with_cpu(hierarchy: Hierarchy, own: dict[str, str]) -> Hierarchy:
    """``hierarchy`` with the parent of its cpu cgroups, or with why there are none."""
    if hierarchy.kind == "cgroup v2":
        (parent,) = hierarchy.parents
        try:
            delegated = (parent / "cgroup.subtree_control").read_text().split()
        except OSError:
            delegated = []
        why = _try_parent(parent, ("cpu.weight",)) if "cpu" in delegated else "the cpu controller not delegated"
    else:
        parent = _v1_dir("cpu", own)  # its own mount, or the link to cpu,cpuacct where the two share one
        why = _try_parent(parent, ("cpu.shares",)) if parent is not None else "no cgroup v1 cpu hierarchy"
    if why:
        return dataclasses.replace(hierarchy, no_cpu=f"{hierarchy.kind}: {why}")
    return dataclasses.replace(hierarchy, cpu=parent)


def _with_devices(hierarchy: Hierarchy, own: dict[str, str]) -> Hierarchy:
    """``hierarchy`` with v1's devices hierarchy where its cgroups can be made and deny (root without
    ``CAP_SYS_ADMIN`` may make one, not write its rules); without one otherwise, and in v2."""
    devices = _v1_dir("devices", own) if hierarchy.kind == "cgroup v1" else None
    if devices is None or _try_parent(devices, (), (("devices.deny", PTY_DEVICES[0]),)):
        return hierarchy
    return dataclasses.replace(hierarchy, devices=devices)


# The kernel's weight of a process at nice -20 .. 19 (``sched_prio_to_weight``; 1024 at nice 0).
NICE_WEIGHTS = [
    int(w)
    for w in """88761 71755 56483 46273 36291 29154 23254 18705 14949 11916 9548 7620 6100 4904 3906 3121 2501 1991
    1586 1277 1024 820 655 526 423 335 272 215 172 137 110 87 70 56 45 36 29 23 18 15""".split()
]


def process_weight() -> int:
    """``cpu.shares`` of one process at this one's nice level: the kernel's own weight for it."""
    return NICE_WEIGHTS[min(19, max(-20, os.getpriority(os.PRIO_PROCESS, 0))) + 20]


def _detect(enabled: bool) -> tuple[Hierarchy | None, str]:
    """The memory and pids controllers (:func:`detect`)."""
    if not enabled:
        return None, "cgroups turned off (--cgroups off)"
    own = _own_paths()
    reasons = []
    v2 = _v2_dir(own)
    if v2 is not None:
        try:
            delegated = set((v2 / "cgroup.subtree_control").read_text().split())
        except OSError:
            delegated = set()
        if {"memory", "pids"} <= delegated:
            why = _try_parent(v2, ("memory.max", "pids.max"))
            if not why:
                return Hierarchy("cgroup v2", (v2,)), ""
            reasons.append(f"cgroup v2: {why}")
        else:
            reasons.append("cgroup v2 without the memory and pids controllers")
    memory, pids = _v1_dir("memory", own), _v1_dir("pids", own)
    if memory is not None and pids is not None:
        why = _try_parent(memory, ("memory.limit_in_bytes",)) or _try_parent(pids, ("pids.max",))
        if not why:
            return Hierarchy("cgroup v1", (memory, pids)), ""
        reasons.append(f"cgroup v1: {why}")
    else:
        reasons.append("no cgroup v1 memory and pids hierarchies")
    return None, "; ".join(reasons)


def _write(path: Path, value) -> None:
    with open(path, "w") as f:
        f.write(str(value))


def _read_int(path: Path) -> int | None:
    try:
        text = path.read_text().strip()
    except OSError:
        return None
    return None if text == "max" else int(text) if text.isdigit() else None


class SubmissionCgroup:
    """The cgroup(s) of one submission: memory and processes limited, its CPU weighed as one process's,
    peak and limit hits read.

    Parameters
    ----------
    hierarchy : from :func:`detect`.
    name : a directory name unique on this machine (``grader-<pid>/s<n>``).
    memory_bytes, processes : the limits.
    """

    def __init__(self, hierarchy: Hierarchy, name: str, memory_bytes: int, processes: int):
        self.kind = hierarchy.kind
        self.dirs = [parent / name for parent in hierarchy.parents + hierarchy.cpu_parents + hierarchy.devices_parents]
        self.memory_bytes = int(memory_bytes)
        made = []
        try:
            for directory in self.dirs:
                directory.parent.mkdir(exist_ok=True)
                if self.kind == "cgroup v2":
                    # v2 hands a child only the controllers its parent enables for its subtree: the
                    # grader-<pid> level between the delegated one and the submission's must pass them on.
                    wanted = ["+memory", "+pids"] + (["+cpu"] if hierarchy.cpu is not None else [])
                    _write(directory.parent / "cgroup.subtree_control", " ".join(wanted))
                directory.mkdir()
                made.append(directory)
            self._limit(int(processes))
            if hierarchy.cpu is not None:
                self._share_cpu(hierarchy.cpu / name)
            for device in PTY_DEVICES if hierarchy.devices is not None else ():
                # Ptys: the host's pool, which neither the memory nor the pids limit bounds.
                _write(hierarchy.devices / name / "devices.deny", device)
        except BaseException:
            # A cgroup half made (a second hierarchy refused, a limit not written) would stay on the
            # machine for good, one per failed submission: the kernel removes only what is removed.
            for directory in reversed(made):
                try:
                    directory.rmdir()
                except OSError:
                    pass
            raise

    def _limit(self, processes: int) -> None:
        if self.kind == "cgroup v2":
            (directory,) = self.dirs
            _write(directory / "memory.max", self.memory_bytes)
            if (directory / "memory.swap.max").exists():
                _write(directory / "memory.swap.max", 0)
            _write(directory / "pids.max", processes)
        else:
            memory, pids = self.dirs[:2]
            rest = self.memory_bytes
            tcp = memory / "memory.kmem.tcp.limit_in_bytes"
            if tcp.exists():  # TCP buffers on a counter of their own: within the bound, not beside it
                rest -= SOCKET_BYTES
                _write(tcp, SOCKET_BYTES)
            _write(memory / "memory.limit_in_bytes", rest)
            if (memory / "memory.memsw.limit_in_bytes").exists():  # swap counted with memory
                _write(memory / "memory.memsw.limit_in_bytes", rest)
            _write(pids / "pids.max", processes)

    def _share_cpu(self, directory: Path) -> None:
        """One process's weight for the submission's cgroup and for the launcher's above it (the one that
        competes with the grader's own processes; a sibling of none but the launcher's other submissions)."""
        shares = process_weight()
        for level in (directory.parent, directory):
            if self.kind == "cgroup v2":  # the kernel's own conversion: weight 100 is 1024
                _write(level / "cpu.weight", min(10000, max(1, round(shares * 100 / 1024))))
            else:
                _write(level / "cpu.shares", shares)

    def add(self, pids: list[int]) -> None:
        """Move processes into this cgroup (in every hierarchy); what they fork stays there."""
        for directory in self.dirs:
            for pid in pids:
                try:
                    _write(directory / "cgroup.procs", pid)
                except ProcessLookupError:
                    pass

    def procs(self) -> list[int]:
        found = set()
        for directory in self.dirs:
            try:
                found.update(int(p) for p in (directory / "cgroup.procs").read_text().split())
            except OSError:
                pass
        return sorted(found)

    def peak_memory(self) -> int | None:
        """The most memory the kernel charged to the cgroup (everything: shmem, kernel memory)."""
        directory = self.dirs[0]
        for name in ("memory.peak", "memory.max_usage_in_bytes"):
            value = _read_int(directory / name)
            if value is not None:
                return value
        return None

    def hit_limit(self) -> bool:
        """Did the kernel refuse memory (or kill for it) in this cgroup?"""
        directory = self.dirs[0]
        if self.kind == "cgroup v2":
            try:
                events = dict(line.split() for line in (directory / "memory.events").read_text().splitlines())
            except (OSError, ValueError):
                return False
            return any(int(events.get(k, 0)) for k in ("max", "oom", "oom_kill"))
        # Kernel memory (inodes, dentries) charged at the limit counts in kmem.failcnt, not failcnt, TCP
        # buffers in kmem.tcp.failcnt (where the kernel still counts failures there: 6.18 does not); and
        # a peak at a limit is the kernel's own account of having refused, whatever counted it.
        failed = sum(
            _read_int(directory / name) or 0
            for name in ("memory.failcnt", "memory.kmem.failcnt", "memory.kmem.tcp.failcnt")
        )
        try:
            oom = dict(line.split() for line in (directory / "memory.oom_control").read_text().splitlines())
        except (OSError, ValueError):
            oom = {}
        at_limit = _at_limit(directory, "memory.", 4 * MB) or _at_limit(directory, "memory.kmem.tcp.", MB)
        return failed > 0 or int(oom.get("oom_kill", 0)) > 0 or at_limit

    def remove(self, move_to: "SubmissionCgroup | None" = None, keep: list[int] = ()) -> bool:
        """Move ``keep`` (the zygote) to ``move_to``, kill anything else left, remove the directories.

        True if every directory went (memory still charged, such as tmpfs pages, moves to the parent).
        """
        if move_to is not None:
            move_to.add(list(keep))
        deadline = time.monotonic() + 5.0
        while True:
            left = [p for p in self.procs() if p not in keep]
            for pid in left:
                try:
                    os.kill(pid, 9)
                except ProcessLookupError:
                    pass
            if not left or time.monotonic() > deadline:
                break
            time.sleep(0.01)
        ok = True
        for directory in self.dirs:
            try:
                directory.rmdir()
            except OSError:
                ok = False
        return ok


def _at_limit(directory: Path, prefix: str, margin: int) -> bool:
    """cgroup v1: did the peak of the counter ``prefix`` (``memory.``, ``memory.kmem.tcp.``) come within
    ``margin`` of its limit? (A refused charge leaves less than one charge's worth free.)"""
    peak, limit = _read_int(directory / f"{prefix}max_usage_in_bytes"), _read_int(directory / f"{prefix}limit_in_bytes")
    return peak is not None and limit is not None and peak >= limit - margin


def remove_parent(hierarchy: Hierarchy, name: str) -> None:
    """Remove ``grader-<pid>`` directories left empty (a launcher's last cgroup gone)."""
    for parent in hierarchy.parents + hierarchy.cpu_parents + hierarchy.devices_parents:
        try:
            (parent / name).rmdir()
        except OSError:
            pass
