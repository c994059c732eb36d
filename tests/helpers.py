"""Shared helpers of the grader's own tests."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
MUTANTS = ROOT / "tests" / "data" / "mutants"


def run_grader(*args: str, cwd: Path = ROOT, timeout: float = 600, env: dict | None = None) -> subprocess.CompletedProcess:
    """Run the real `grader` command line in a fresh process."""
    full_env = dict(os.environ, **(env or {}))
    return subprocess.run([sys.executable, "-m", "grader", *args], cwd=cwd, capture_output=True, text=True,
                          timeout=timeout, env=full_env)


def grade_json(*submissions: Path | str, only: list[str] | None = None, timeout: float = 600) -> list[dict]:
    """`grader grade --json` on submissions; one dict per submission, in order."""
    args = ["grade", "--json", *[str(s) for s in submissions]]
    for f in only or []:
        args += ["--only", f]
    proc = run_grader(*args, timeout=timeout)
    assert proc.returncode == 0, f"grader grade failed ({proc.returncode}):\n{proc.stderr}"
    lines = [line for line in proc.stdout.splitlines() if line.strip()]
    assert len(lines) == len(submissions), proc.stdout
    return [json.loads(line) for line in lines]


@dataclass(frozen=True)
class Mutant:
    """A wrong implementation of one function, kept as test data."""

    function: str
    name: str
    path: Path
    summary: str
    expect: str  # a phrase some failure message must contain

    def __str__(self) -> str:
        return f"{self.function}/{self.name}"


def load_mutants(function: str | None = None) -> list[Mutant]:
    mutants = []
    for path in sorted(MUTANTS.glob("*/*.py")):
        if function is not None and path.parent.name != function:
            continue
        text = path.read_text(encoding="utf-8")
        doc = re.match(r'\s*"""(.*?)"""', text, re.S)
        assert doc, f"{path}: a mutant starts with a docstring naming its misconception"
        expect = re.search(r"^expect:\s*(.+)$", doc.group(1), re.M)
        assert expect, f"{path}: the docstring needs an 'expect: <phrase>' line"
        mutants.append(Mutant(path.parent.name, path.stem, path, doc.group(1).strip().splitlines()[0],
                              expect.group(1).strip()))
    return mutants


def build_submission(dest: Path, replacements: list[Path] = (), course_root: Path = ROOT,
                     modules_of: dict[str, str] | None = None) -> Path:
    """A copy of solutions/ with each replacement file appended to the module of its function.

    A later ``def`` replaces the earlier one, so appending a mutant swaps in the wrong
    implementation while every other function stays correct. A mutant whose docstring
    has a ``module: <name>`` line goes to that module instead: a lab's mutants are wrong
    *student* functions (e.g. ``module: gae``), as the lab's own code is course-provided.
    """
    from grader.course import load_course

    course = load_course(course_root, check_tests=False)
    dest.mkdir(parents=True, exist_ok=True)
    for path in course.solutions_dir.glob("*.py"):
        shutil.copy(path, dest / path.name)
    for replacement in replacements:
        function = Path(replacement).parent.name
        text = Path(replacement).read_text(encoding="utf-8")
        doc = re.match(r'\s*"""(.*?)"""', text, re.S)
        declared = re.search(r"^module:\s*(\w+)\s*$", doc.group(1), re.M) if doc else None
        module = ((modules_of or {}).get(function) or (declared.group(1) if declared else None)
                  or course.exercise(function).module)
        with open(dest / f"{module}.py", "a", encoding="utf-8") as out:
            out.write("\n\n# --- replaced for a test ---\n")
            out.write(text)
    return dest


def recording(functions, seen: list):
    """A copy of ``functions`` (a namespace of functions) that appends ``(name, argument)`` to
    ``seen`` for every argument of every call, then calls the original."""
    def spy(function):
        def call(*args, **kwargs):
            seen.extend((function.__name__, value) for value in (*args, *kwargs.values()))
            return function(*args, **kwargs)
        return call

    return type(functions)(**{name: spy(f) for name, f in vars(functions).items()})
