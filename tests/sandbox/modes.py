"""The five sandbox modes the host-measured attacks run in, and a runner for one attack in one mode.

bubblewrap with a cgroup (with and without the seccomp filter: a machine whose architecture the filter
does not know), bubblewrap without a cgroup (the fallback), and, as root, without bubblewrap, with and
without a cgroup. An attack module gives ``attack(path, what, **launcher options)`` (run here, under
bubblewrap), ``SCRIPT`` (the same in a process of its own, as root without bubblewrap: the worker is then
a user id of its own that must read its Python) and ``parse`` (that process's report).
"""

from __future__ import annotations

import os
import shutil
import subprocess
import tempfile
from pathlib import Path
from types import ModuleType
from typing import Callable

import pytest

from grader.sandbox import cgroups, seccomp
from tests.helpers import ROOT
from tests.sandbox.common import SETUP
from tests.sandbox.test_unprivileged import readable_python

HIERARCHY, NO_CGROUPS = cgroups.detect()

# name: (needs bubblewrap, a cgroup, the filter; launcher options; environment)
MODES = {
    "bubblewrap, cgroup": (True, True, True, {"sandbox": "require"}, {}),
    "bubblewrap, cgroup, no filter": (True, True, False, {"sandbox": "require", "seccomp": False}, {}),
    "bubblewrap, no cgroup": (True, False, True, {"sandbox": "require"}, {"GRADER_NO_CGROUPS": "1"}),
    "no bubblewrap, cgroup": (False, True, True, None, {"GRADER_NO_BWRAP": "1"}),
    "no bubblewrap, no cgroup": (False, False, True, None, {"GRADER_NO_BWRAP": "1", "GRADER_NO_CGROUPS": "1"}),
}
FILTERED = [m for m, spec in MODES.items() if spec[2]]


@pytest.fixture(scope="module")
def readable_venv():
    """A virtual environment every user can read, seeing this one's packages and the grader (as root
    without bubblewrap, the worker is a user id of its own that must read its Python)."""
    python = readable_python()
    if python is None:
        pytest.skip("no Python readable by every user here (the grader then refuses: test_sandbox.py)")
    work = Path(tempfile.mkdtemp(prefix="grader-sockets-"))
    try:
        os.chmod(work, 0o755)
        subprocess.run([python, "-m", "venv", "--without-pip", str(work / "venv")], check=True)
        site = next((work / "venv/lib").glob("python*/site-packages"))
        packages = Path(__import__("numpy").__file__).parent.parent
        (site / "grader-test.pth").write_text(f"{packages}\n{ROOT}\n")
        yield work
    finally:
        shutil.rmtree(work, ignore_errors=True)


def runner(request, tmp_path: Path, attacks: ModuleType, timeout: float) -> Callable[[str], dict]:
    """``run(what)``: one attack of ``attacks`` in the mode of the test's parameter (skipped where the
    machine lacks the mode); the mode's environment is set with pytest's ``monkeypatch``."""
    mode = request.param
    bubblewrap, cgroup, filtered, options, env = MODES[mode]
    if cgroup and HIERARCHY is None:
        pytest.skip(f"no usable cgroup controllers here: {NO_CGROUPS}")
    if bubblewrap and SETUP is None:
        pytest.skip("no working bubblewrap here")
    if filtered and (seccomp.native_arch() is None or (bubblewrap and not SETUP.seccomp)):
        pytest.skip("no seccomp filter here")
    if not bubblewrap and os.geteuid() != 0:
        pytest.skip("without bubblewrap, only root runs student code under the filter")
    monkeypatch = request.getfixturevalue("monkeypatch")
    for name, value in env.items():
        monkeypatch.setenv(name, value)
    if bubblewrap:
        return lambda what: attacks.attack(tmp_path / what, what, **options)
    venv = request.getfixturevalue("readable_venv")

    def in_own_process(what: str) -> dict:
        proc = subprocess.run(
            [str(venv / "venv/bin/python"), "-c", attacks.SCRIPT, str(venv / f"{mode}-{what}"), what],
            capture_output=True,
            text=True,
            timeout=timeout,
            env={**os.environ, **env},
            cwd=venv,
        )
        assert proc.returncode == 0, proc.stderr[-3000:]
        return attacks.parse(proc.stdout)

    return in_own_process
