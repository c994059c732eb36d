"""What a worker can see and do, in the sandbox and without it (limits only)."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from grader.core.course import load_course
from grader.engine.driver import grade_here
from grader.engine.parcel import Parcel
from grader.sandbox import SandboxLauncher
from grader.sandbox.bwrap import SHM_BYTES
from grader.sandbox.limits import Limits
from grader.worker.client import WorkerProcess
from tests.helpers import ROOT
from tests.sandbox.common import SPACE, call, leftover_processes, needs_bwrap
from tests.toy_course import make_toy_course, solution_source

LOOK = """
import os, resource, sys

def look(paths):
    seen = {"root": sorted(os.listdir("/")), "uid": os.getuid(), "pid": os.getpid(),
            "cwd": os.getcwd(), "interfaces": [line.split(":")[0].strip() for line in open("/proc/net/dev")][2:],
            "processes": sorted(int(p) for p in os.listdir("/proc") if p.isdigit()),
            "exists": {p: os.path.exists(p) for p in paths},
            "limits": {name: resource.getrlimit(getattr(resource, name))[0]
                       for name in ("RLIMIT_AS", "RLIMIT_CPU", "RLIMIT_NPROC", "RLIMIT_FSIZE", "RLIMIT_NOFILE")}}
    try:
        with open("/usr/planted", "w"):
            pass
        seen["usr_writable"] = True
    except OSError:
        seen["usr_writable"] = False
    return seen

def shm():
    import ctypes
    libc = ctypes.CDLL(None)
    return libc.shmget(0, 4096, 0o1000 | 0o600)  # IPC_PRIVATE, IPC_CREAT
"""


@pytest.fixture()
def toy(tmp_path):
    return load_course(make_toy_course(tmp_path / "course"))


def _call(worker: WorkerProcess, function: str, *args):
    return call(worker, "look", function, *args)


def _look(launcher: SandboxLauncher, tmp_path: Path, paths: list[str]) -> dict:
    submission = tmp_path / "probe"
    submission.mkdir()
    (submission / "look.py").write_text(LOOK)
    worker = WorkerProcess(submission, launcher)
    worker.start()
    try:
        return _call(worker, "look", paths)
    finally:
        worker.kill()


@needs_bwrap
def test_the_sandbox_shows_only_the_submission(toy, tmp_path):
    other = tmp_path / "other-student"
    other.mkdir()
    paths = [
        str(ROOT),
        str(ROOT / "solutions"),
        str(toy.root),
        str(toy.solutions_dir),
        str(toy.tests_dir),
        str(other),
        str(Path.home()),
        "/etc/passwd",
        "/var",
        "/tmp/grader/submission/look.py",
    ]
    with SandboxLauncher(Limits.from_course(toy), sandbox="require") as launcher:
        seen = _look(launcher, tmp_path, paths)
    exists = seen["exists"]
    assert exists.pop("/tmp/grader/submission/look.py") is True
    # The Python installation may live under the home directory (pyenv): then the
    # directories on its path exist, empty but for it.
    python_parents = {
        str(p) for prefix in (sys.prefix, os.path.realpath(sys.base_prefix)) for p in Path(prefix).parents
    }
    visible = [p for p, there in exists.items() if there and p not in python_parents]
    assert visible == [], f"visible inside the sandbox: {visible}"
    assert set(seen["root"]) <= {
        "bin",
        "dev",
        "lib",
        "lib32",
        "lib64",
        "libx32",
        "opt",
        "proc",
        "sbin",
        "tmp",
        "usr",
        "root",
        "home",
        "work",
    } | {Path(sys.prefix).parts[1]}
    assert seen["uid"] != 0
    assert seen["interfaces"] == ["lo"]
    assert seen["usr_writable"] is False
    assert len(seen["processes"]) <= 3, seen["processes"]  # the zygote, the worker: its own PID namespace
    limits = Limits.from_course(toy)
    assert seen["limits"]["RLIMIT_AS"] == limits.memory_mb * 2**20
    assert seen["limits"]["RLIMIT_FSIZE"] == limits.file_size_mb * 2**20
    assert seen["limits"]["RLIMIT_NOFILE"] == limits.open_files
    assert seen["limits"]["RLIMIT_NPROC"] == limits.processes + 1


@needs_bwrap
def test_dev_is_read_only_and_shared_memory_is_small(toy, tmp_path):
    submission = tmp_path / "space"
    submission.mkdir()
    (submission / "space.py").write_text(SPACE)
    with SandboxLauncher(Limits.from_course(toy), sandbox="require") as launcher:
        worker = WorkerProcess(submission, launcher)
        worker.start()
        try:
            seen = call(worker, "space", "space")
        finally:
            worker.kill()
    assert seen["dev"] is False  # /dev is a tmpfs as large as memory: never writable
    assert 0 < seen["shm"] <= SHM_BYTES  # multiprocessing works, within a bound


def test_limits_apply_without_the_sandbox(toy, tmp_path):
    with SandboxLauncher(Limits.from_course(toy), sandbox="off") as launcher:
        assert not launcher.sandboxed
        seen = _look(launcher, tmp_path, [])
    limits = Limits.from_course(toy)
    assert seen["limits"]["RLIMIT_AS"] == limits.memory_mb * 2**20
    assert seen["limits"]["RLIMIT_CPU"] == int(limits.cpu_seconds)
    assert seen["limits"]["RLIMIT_FSIZE"] == limits.file_size_mb * 2**20


@pytest.mark.parametrize("mode", [pytest.param("require", marks=needs_bwrap), "off"])
def test_detached_children_die_with_their_submission(toy, tmp_path, mode):
    hostile = (ROOT / "tests" / "data" / "hostile" / "forks_children.py").read_text()
    (tmp_path / "forks.py").write_text(hostile.replace("@@CANARY@@", str(tmp_path / "canary")))
    (tmp_path / "fine.py").write_text(solution_source())
    with SandboxLauncher(Limits.from_course(toy), sandbox=mode) as launcher:
        records = grade_here(toy, [Parcel.read(s, tmp_path / f"{s}.py") for s in ("forks", "fine")], launcher=launcher)
        results = {s: r.result for s, r in records.items()}
        assert leftover_processes(launcher) == []
    assert results["fine"].total == results["fine"].max
    assert results["forks"].functions["double"].score == 0
    assert not (tmp_path / "canary").exists() or mode == "off"


@needs_bwrap
def test_a_zygote_left_dirty_is_replaced(toy, tmp_path):
    submission = tmp_path / "probe"
    submission.mkdir()
    (submission / "look.py").write_text(LOOK)
    with SandboxLauncher(Limits.from_course(toy), sandbox="require") as launcher:
        worker = WorkerProcess(submission, launcher)
        worker.start()
        assert _call(worker, "shm") >= 0  # a System V segment outlives its process
        worker.kill()
        worker = WorkerProcess(submission, launcher)
        worker.start()
        assert _call(worker, "look", [])["uid"] != 0
        worker.kill()
        assert launcher.zygotes_started == 2


def _grade_class(args: list[str], env: dict, cwd: Path) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "grader", *args],
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=300,
        env=dict(os.environ, **env),
    )


def test_without_bubblewrap_a_loud_warning_or_a_refusal(tmp_path):
    course = make_toy_course(tmp_path / "course")
    submissions = tmp_path / "class"
    submissions.mkdir()
    (submissions / "alice.py").write_text(solution_source())
    env = {"GRADER_NO_BWRAP": "1"}
    refused = _grade_class(
        ["grade-class", str(submissions), "--out", str(tmp_path / "r1"), "--course", str(course), "--require-sandbox"],
        env,
        tmp_path,
    )
    assert refused.returncode == 2
    assert "sandbox is required but not available" in refused.stderr
    assert not (tmp_path / "r1" / "results").exists()
    warned = _grade_class(
        ["grade-class", str(submissions), "--out", str(tmp_path / "r2"), "--course", str(course), "-j", "1"],
        env,
        tmp_path,
    )
    if os.geteuid() == 0:
        # Never as root: a user id of its own under the seccomp filter, or a refusal saying why.
        from grader.sandbox.bwrap import pick_uid
        from grader.sandbox.launcher import unprivileged_problem

        if unprivileged_problem(pick_uid(), (course / "autograder-tests", course / "solutions")):
            assert warned.returncode == 2 and "refusing to grade" in warned.stderr, warned.stderr
            assert not (tmp_path / "r2" / "results" / "alice.json").exists()
            return
        assert "no bubblewrap" in warned.stderr and "seccomp filter" in warned.stderr, warned.stderr
    assert warned.returncode == 0, warned.stderr
    assert "WARNING: grading WITHOUT a sandbox" in warned.stderr
    assert (tmp_path / "r2" / "results" / "alice.json").is_file()


def test_course_yaml_can_require_the_sandbox(tmp_path):
    course = make_toy_course(tmp_path / "course")
    text = (course / "course.yaml").read_text().replace("output_kb: 8", "output_kb: 8\n  require: true")
    (course / "course.yaml").write_text(text)
    submissions = tmp_path / "class"
    submissions.mkdir()
    (submissions / "alice.py").write_text(textwrap.dedent(solution_source()))
    refused = _grade_class(
        ["grade-class", str(submissions), "--out", str(tmp_path / "r"), "--course", str(course)],
        {"GRADER_NO_BWRAP": "1"},
        tmp_path,
    )
    assert refused.returncode == 2 and "sandbox is required" in refused.stderr
