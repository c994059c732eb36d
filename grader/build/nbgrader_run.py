"""Run the real ``nbgrader`` command line in a course directory."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from grader.errors import GraderError


def nbgrader_env() -> dict[str, str]:
    """The environment nbgrader runs in: this interpreter's tools first, this grader importable."""
    env = dict(os.environ)
    # nbgrader runs `alembic` from PATH: the environment's bin/ must come first even when it
    # is not activated.
    env["PATH"] = os.pathsep.join([str(Path(sys.executable).parent), env.get("PATH", "")])
    # nbgrader imports the course's preprocessors from this grader.
    env["PYTHONPATH"] = os.pathsep.join(p for p in [str(Path(__file__).resolve().parents[2]),
                                                     env.get("PYTHONPATH", "")] if p)
    return env


def run_nbgrader(course_dir: Path, *args: str, timeout: float = 1800, check: bool = True) -> subprocess.CompletedProcess:
    """``nbgrader ARGS`` with ``course_dir`` as working directory (where nbgrader_config.py is).

    Raises
    ------
    GraderError
        With the end of nbgrader's log, when ``check`` and nbgrader fails.
    """
    env = nbgrader_env()
    try:
        proc = subprocess.run([sys.executable, "-m", "nbgrader", *args], cwd=course_dir, capture_output=True,
                              text=True, timeout=timeout, env=env)
    except subprocess.TimeoutExpired:
        raise GraderError(f"nbgrader {' '.join(args)} did not finish within {timeout:g} s") from None
    if check and proc.returncode != 0:
        log = (proc.stdout + proc.stderr).strip().splitlines()
        raise GraderError(f"nbgrader {' '.join(args)} failed (exit {proc.returncode}):\n" + "\n".join(log[-25:]))
    return proc
