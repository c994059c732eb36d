"""A submission's share of the CPU: its processes weigh as one process of the grader's (the review's
a_cpu_starve).

Before: nothing bounded it. ``RLIMIT_CPU`` is per process and the process limit is 32, so 30 forked
spinners slowed a submission graded beside them from 1.5 s to 2.1 s, and 19.6 s once each called
``setsid`` (an autogroup each). Now every process of a submission is in a cpu cgroup of its own whose
weight is that of one process at the grader's nice level. Read from the host in every mode with a
cgroup: ``/proc/<pid>/cgroup`` of each of the sandbox's processes and the ``cpu.shares`` (v1) or
``cpu.weight`` (v2) of every cgroup from the grader's own down to theirs.
"""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

import pytest

from grader.sandbox import SandboxLauncher, cgroups
from grader.sandbox.limits import Limits
from grader.sandbox.zygote import children
from grader.worker.client import WorkerProcess
from tests.sandbox.common import SETUP, call
from tests.sandbox.modes import readable_venv  # noqa: F401 - a fixture

HIERARCHY, NO_CGROUPS = cgroups.detect()

# A submission whose children (three, sleeping: the test spends no CPU) outlive the call.
STUDENT = """
import os, signal

def fork(n):
    for _ in range(n):
        if os.fork() == 0:
            os.setsid()
            signal.pause()
    return n
"""

SCRIPT = """
import json, sys
from pathlib import Path
from tests.sandbox.test_cpu_share import observe
print(json.dumps(observe(Path(sys.argv[1]), {"bubblewrap": False})))
"""

# name: (needs bubblewrap; launcher options, or None: as root in a process of its own without bubblewrap)
MODES = {
    "bubblewrap": (True, {"sandbox": "require"}),
    "bubblewrap, no filter": (True, {"sandbox": "require", "seccomp": False}),
    "no bubblewrap": (False, None),
    "no sandbox": (False, {"sandbox": "off"}),
}


def _cpu_mount() -> tuple[Path, str] | None:
    """(mount point, weight file) of the cpu controller on this machine, from /proc/self/mountinfo."""
    v2 = None
    for line in Path("/proc/self/mountinfo").read_text().splitlines():
        fields = line.split()
        fstype, options = fields[fields.index("-") + 1], fields[-1].split(",")
        if fstype == "cgroup" and "cpu" in options:
            return Path(fields[4]), "cpu.shares"
        if fstype == "cgroup2" and "cpu" in (Path(fields[4]) / "cgroup.controllers").read_text().split():
            v2 = Path(fields[4]), "cpu.weight"
    return v2


CPU = _cpu_mount()


def cpu_group(pid: int) -> str:
    """The path of ``pid``'s cgroup in the cpu controller's hierarchy (from /proc/<pid>/cgroup)."""
    for line in Path(f"/proc/{pid}/cgroup").read_text().splitlines():
        _, controllers, path = line.split(":", 2)
        if (CPU[1] == "cpu.shares" and "cpu" in controllers.split(",")) or (CPU[1] == "cpu.weight" and not controllers):
            return path
    raise AssertionError(f"{pid} in no cpu cgroup")


def expected_weight() -> int:
    """One process of this one's: its load weight as the scheduler shows it (scaled by 1024 on 64-bit
    kernels), in the controller's units (v2: 100 for 1024)."""
    shares = 1024
    for line in Path("/proc/self/sched").read_text().splitlines() if Path("/proc/self/sched").exists() else []:
        if line.startswith("se.load.weight"):
            shares = int(line.split(":")[1]) // 1024
    return shares if CPU[1] == "cpu.shares" else round(shares * 100 / 1024)


def observe(work: Path, options: dict) -> dict:
    """Start a worker whose function forks three children; the cpu cgroups of the sandbox's processes,
    their weights, and whether the groups are gone once the launcher has closed."""
    submission = work / "submission"
    submission.mkdir(parents=True)
    (submission / "m.py").write_text(STUDENT)
    with SandboxLauncher(Limits(), **options) as launcher:
        worker = WorkerProcess(submission, launcher)
        worker.start()
        assert call(worker, "m", "fork", 3) == 3
        tree, todo = [], [launcher._zygote.process.pid]
        while todo:
            pid = todo.pop()
            tree.append(pid)
            todo.extend(children(pid))
        groups = sorted({cpu_group(pid) for pid in tree})
        weights = {}
        for group in groups:
            for level in [group, *[str(p) for p in Path(group).parents]]:
                weights[level] = int((CPU[0] / level.lstrip("/") / CPU[1]).read_text())
        describe = launcher.describe()
        worker.kill()
    left = [group for group in groups if (CPU[0] / group.lstrip("/")).exists()]
    return {"describe": describe, "processes": len(tree), "groups": groups, "weights": weights, "left": left}


@pytest.fixture(params=list(MODES))
def observed(request, tmp_path):
    bubblewrap, options = MODES[request.param]
    if HIERARCHY is None:
        pytest.skip(f"no usable cgroup controllers here: {NO_CGROUPS}")
    if CPU is None:
        pytest.skip("no cpu controller on this machine")
    if bubblewrap and SETUP is None:
        pytest.skip("no working bubblewrap here")
    if options is not None:
        return observe(tmp_path, options)
    if os.geteuid() != 0:
        pytest.skip("without bubblewrap, only root runs student code")
    venv = request.getfixturevalue("readable_venv")
    work = venv / f"cpu-{os.getpid()}"
    proc = subprocess.run(
        [str(venv / "venv/bin/python"), "-c", SCRIPT, str(work)],
        capture_output=True,
        text=True,
        timeout=300,
        cwd=venv,
        env={k: v for k, v in os.environ.items() if k != "PYTHONPATH"},
    )
    assert proc.returncode == 0, proc.stderr[-3000:]
    return json.loads(proc.stdout.strip().splitlines()[-1])


def test_a_submissions_processes_weigh_as_one_of_the_graders(observed):
    # Before: the sandbox's processes stayed in the grader's own cpu cgroup, each weighing one process.
    own = cpu_group(os.getpid())
    assert observed["processes"] >= 5, observed  # the zygote, the worker, its three children
    (group,) = observed["groups"]  # every one of them in the same cgroup ...
    assert group != own and group.startswith(own.rstrip("/") + "/"), (own, observed)  # ... below the grader's
    inside = own.rstrip("/") + "/"
    below = {
        level: weight for level, weight in observed["weights"].items() if level != own and level.startswith(inside)
    }
    assert below and set(below.values()) == {expected_weight()}, (expected_weight(), observed)
    assert "CPU (one process's share)" in observed["describe"], observed["describe"]
    assert observed["left"] == [], observed  # removed with the submission's other cgroups


def test_a_cpu_cgroup_half_made_is_removed(monkeypatch):
    """A weight the kernel refuses leaves no directory behind, in any hierarchy (as a memory limit would)."""
    if HIERARCHY is None or HIERARCHY.cpu is None:
        pytest.skip(f"no cpu controller with the cgroups here: {NO_CGROUPS or HIERARCHY.no_cpu}")
    write = cgroups._write

    def refused(path, value):
        if path.name in ("cpu.shares", "cpu.weight"):
            raise PermissionError(f"{path}: not permitted")
        write(path, value)

    monkeypatch.setattr(cgroups, "_write", refused)
    parent = f"grader-test-{os.getpid()}"
    with pytest.raises(PermissionError):
        cgroups.SubmissionCgroup(HIERARCHY, f"{parent}/s1", 256 << 20, 8)
    cgroups.remove_parent(HIERARCHY, parent)
    roots = (*HIERARCHY.parents, HIERARCHY.cpu)
    assert not any((root / parent).exists() for root in roots), roots


def test_the_launcher_says_when_there_is_no_cpu_controller(monkeypatch):
    """Memory and processes bounded as before, and the sandbox line says the CPU is not shared out."""
    if HIERARCHY is None or HIERARCHY.kind != "cgroup v1":
        pytest.skip(f"what a cgroup v1 machine without a cpu hierarchy does ({NO_CGROUPS or HIERARCHY.kind})")
    own = cgroups._own_paths

    monkeypatch.setattr(cgroups, "_own_paths", lambda: {k: v for k, v in own().items() if k != "cpu"})
    launcher = SandboxLauncher(Limits(), sandbox="off")
    try:
        assert launcher.hierarchy.parents == HIERARCHY.parents, launcher.hierarchy
        assert "no CPU share (cgroup v1: no cgroup v1 cpu hierarchy)" in launcher.accounting, launcher.accounting
    finally:
        launcher.close()
