"""No root for student code, even without bubblewrap (issue 22, item 5).

As root without bubblewrap (Gradescope's containers, CI with $GRADER_NO_BWRAP), the
submission ran as root: it wrote its own results.json and could kill the grader. Now
the zygote gives root up for a user id of its own and installs the seccomp filter
itself, or the grader refuses to grade and says why.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest

from tests.helpers import ROOT

SCRIPT = '''
import json, os, sys, tempfile
from pathlib import Path
from grader.sandbox import SandboxLauncher
from grader.sandbox.limits import Limits
from grader.worker import runtime
from grader.worker.client import WorkerProcess

secret, results, grader_pid = Path(sys.argv[1]), Path(sys.argv[2]), int(sys.argv[3])
submission = Path(tempfile.mkdtemp())
(submission / "m.py").write_text("""
import os
def attack(secret, results, grader_pid):
    seen = {"uid": os.getuid()}
    try:
        seen["secret"] = open(secret).read()
    except OSError as exc:
        seen["secret"] = None
    try:
        open(os.path.join(results, "results.json"), "w").write('{"score": 999}')
        seen["wrote"] = True
    except OSError:
        seen["wrote"] = False
    try:
        os.kill(grader_pid, 0)
        seen["can_kill"] = True
    except OSError:
        seen["can_kill"] = False
    try:
        os.unshare(os.CLONE_NEWUSER)
        seen["unshare"] = True
    except (OSError, AttributeError):
        seen["unshare"] = False
    return seen
""")
with SandboxLauncher(Limits(), private=(secret.parent,), bubblewrap=False) as launcher:
    worker = WorkerProcess(submission, launcher)
    worker.start()
    reply = worker.request({"op": "call", "module": "m", "function": "attack",
                            "args": runtime.encode([str(secret), str(results), grader_pid]),
                            "kwargs": runtime.encode({})}, timeout=60)
    worker.kill()
    print(json.dumps({"describe": launcher.describe(), "seen": runtime.decode(reply.get("value"))}))
'''


def readable_python() -> str | None:
    """A Python of this version whose files every user may read (this one may live under /root)."""
    name = f"python{sys.version_info.major}.{sys.version_info.minor}"
    for candidate in (sys.executable, shutil.which(name), f"/usr/bin/{name}", f"/usr/local/bin/{name}"):
        if not candidate or not os.path.exists(candidate):
            continue
        if all(os.stat(p).st_mode & 0o005 == 0o005 for p in Path(os.path.realpath(candidate)).parents):
            return candidate
    return None


@pytest.mark.skipif(os.geteuid() != 0, reason="what runs as root without bubblewrap")
def test_without_bubblewrap_student_code_runs_as_a_user_of_its_own_under_the_filter():
    python = readable_python()
    if python is None:
        pytest.skip("no Python readable by every user here (the grader then refuses: test_sandbox.py)")
    work = Path(tempfile.mkdtemp(prefix="grader-unprivileged-"))
    try:
        os.chmod(work, 0o755)
        # A virtual environment every user can read, seeing this environment's packages and the grader.
        subprocess.run([python, "-m", "venv", "--without-pip", str(work / "venv")], check=True)
        site = next((work / "venv/lib").glob("python*/site-packages"))
        packages = Path(__import__("numpy").__file__).parent.parent
        (site / "grader-test.pth").write_text(f"{packages}\n{ROOT}\n")
        secret_dir = work / "course"
        secret_dir.mkdir(mode=0o700)
        (secret_dir / "hidden.py").write_text("EXPECTED = 42\n")
        results = work / "results"
        results.mkdir(mode=0o755)
        proc = subprocess.run(
            [
                str(work / "venv/bin/python"),
                "-c",
                SCRIPT,
                str(secret_dir / "hidden.py"),
                str(results),
                str(os.getpid()),
            ],
            capture_output=True,
            text=True,
            timeout=300,
            env=dict(os.environ, GRADER_NO_BWRAP="1"),
            cwd=work,
        )
        assert proc.returncode == 0, proc.stderr[-3000:]
        out = json.loads(proc.stdout.strip().splitlines()[-1])
        seen = out["seen"]
        assert seen["uid"] != 0 and "seccomp filter" in out["describe"], out
        assert seen["secret"] is None and not seen["wrote"] and not seen["can_kill"], seen
        assert not seen["unshare"], seen
        assert not (results / "results.json").exists()
    finally:
        shutil.rmtree(work, ignore_errors=True)


COURSE_CHECK = """
import sys
from grader.core.course import load_course
from grader.errors import GraderError
from grader.sandbox import sandbox_launcher
try:
    sandbox_launcher(load_course(sys.argv[1]), mode="auto", bubblewrap=False).close()
    print("graded")
except GraderError as exc:
    print(exc)
"""


@pytest.mark.skipif(os.geteuid() != 0, reason="what runs as root without bubblewrap")
def test_without_bubblewrap_a_course_readable_by_others_is_refused_whole():
    # Review attack fallback_reads_git: solutions/ and autograder-tests/ were 0700 as the check asked, yet
    # the course's .git (and everything else in a world-readable course folder) gave the sandbox's user
    # the solutions and hidden tests. The course's root must be private now, not only those two folders.
    from tests.toy_course import make_toy_course

    python = readable_python()
    if python is None:
        pytest.skip("no Python readable by every user here (the grader then refuses: test_sandbox.py)")
    work = Path(tempfile.mkdtemp(prefix="grader-course-"))
    try:
        os.chmod(work, 0o755)
        subprocess.run([python, "-m", "venv", "--without-pip", str(work / "venv")], check=True)
        site = next((work / "venv/lib").glob("python*/site-packages"))
        packages = Path(__import__("numpy").__file__).parent.parent
        (site / "grader-test.pth").write_text(f"{packages}\n{ROOT}\n")
        course = make_toy_course(work / "course")
        os.chmod(course, 0o755)
        for private in ("solutions", "autograder-tests"):
            os.chmod(course / private, 0o700)
        history = course / ".git" / "objects" / "ab"
        history.mkdir(parents=True)
        (history / "cdef").write_text("def double(x):\n    return 2.0 * x  ### BEGIN SOLUTION\n")
        for folder in (course / ".git", course / ".git" / "objects", history):
            os.chmod(folder, 0o755)

        def check() -> str:
            proc = subprocess.run(
                [str(work / "venv/bin/python"), "-c", COURSE_CHECK, str(course)],
                capture_output=True,
                text=True,
                timeout=120,
                env=dict(os.environ, GRADER_NO_BWRAP="1"),
                cwd=work,
            )
            assert proc.returncode == 0, proc.stderr[-3000:]
            return proc.stdout.strip().splitlines()[-1]

        refused = check()
        assert "refusing to grade" in refused and "could read" in refused and str(course) in refused, refused
        os.chmod(course, 0o700)  # what the message asks: then the course is graded
        assert check() == "graded"
    finally:
        shutil.rmtree(work, ignore_errors=True)
