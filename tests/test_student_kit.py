"""The student kit: installed into a fresh virtual environment, it checks work in an empty folder
without solutions/ and without any hidden test (issue 18, item 3)."""

from __future__ import annotations

import shutil
import subprocess
import sys
import sysconfig
import zipfile
from pathlib import Path

import nbformat
import pytest

from grader.build.kit import write_kits
from grader.build.leaks import check_leaks
from grader.check.command import ALL_PASSED
from tests.test_cell_isolation import COURSE, notebook


@pytest.fixture(scope="module")
def kits(tmp_path_factory):
    course_dir = tmp_path_factory.mktemp("course-build")
    write_kits(COURSE, course_dir, ["ps4b"])
    return course_dir


def test_a_kit_holds_no_solution_and_no_hidden_test(kits, tmp_path):
    kit = kits / "kit" / "ps4b"
    assert sorted(p.name for p in (kit / "exercises").iterdir()) == ["gae.py", "ppo_objective.py"]
    names = zipfile.ZipFile(next((kit / "checker").glob("*.whl"))).namelist()
    assert "rl_llm_m4_kit/course/autograder-tests/visible/test_gae_advantages.py" in names
    assert not [n for n in names if "hidden" in n or "solutions" in n or "mistakes" in n or "worked_examples" in n]
    assert check_leaks(COURSE, kits) == []
    # The leak check reads the kits: a solution copied into one is found.
    copy = tmp_path / "copy"
    shutil.copytree(kits, copy)
    shutil.copy(COURSE.solutions_dir / "gae.py", copy / "kit" / "ps4b" / "exercises" / "gae.py")
    assert any(leak.kind == "solution line" and leak.path.endswith("gae.py") for leak in check_leaks(COURSE, copy))


@pytest.mark.slow
def test_the_kit_installs_into_a_fresh_venv_and_checks_in_an_empty_folder(kits, tmp_path):
    venv = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True, timeout=300)
    python = venv / "bin" / "python"
    # No network here: the kit's dependencies (numpy, pytest, ...) are taken from this environment by
    # path. The grader of this repository is an editable install, reached through a finder that a plain
    # path does not run, so `grader` can only come from the kit.
    site = subprocess.run(
        [str(python), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout.strip()
    Path(site, "course-deps.pth").write_text(sysconfig.get_paths()["purelib"] + "\n")
    wheel = next((kits / "kit" / "ps4b" / "checker").glob("*.whl"))
    proc = subprocess.run(
        [str(python), "-m", "pip", "install", "--no-index", "-q", str(wheel)],
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr
    empty = tmp_path / "empty"
    empty.mkdir()
    where = subprocess.run(
        [str(python), "-c", "import grader; print(grader.__file__)"],
        cwd=empty,
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    assert where.startswith(str(venv)), where

    def check(*args) -> subprocess.CompletedProcess:
        return subprocess.run(
            [str(venv / "bin" / "grader"), "check", *args],
            cwd=empty,
            capture_output=True,
            text=True,
            timeout=600,
            env={"PATH": str(venv / "bin"), "HOME": str(tmp_path)},
        )

    lost = check()  # in an empty folder: the kit's own stubs are not the student's work
    assert lost.returncode == 2 and "say what to check" in lost.stderr, lost.stdout + lost.stderr
    shutil.copytree(kits / "kit" / "ps4b" / "exercises", empty / "work")
    stubs = check("work")
    assert stubs.returncode == 1 and "gae_advantages is not implemented yet" in stubs.stdout, (
        stubs.stdout + stubs.stderr
    )
    for module in ("gae", "ppo_objective"):
        shutil.copy(COURSE.solutions_dir / f"{module}.py", empty / "work")
    done = check("work")
    assert done.returncode == 0 and ALL_PASSED in done.stdout, done.stdout + done.stderr
    nbformat.write(notebook("ps4b", {}), empty / "ps4b.ipynb")
    assert ALL_PASSED in check("ps4b.ipynb").stdout
