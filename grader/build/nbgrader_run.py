"""Run the real ``nbgrader`` command line in a course directory."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import threading
from pathlib import Path

from grader.errors import GraderError

# `python -m nbgrader` with this grader imported first, so that its import does not build the parser of
# rfc3987_syntax it never uses (1.2 s of CPU per nbgrader run: see grader/__init__.py).
NBGRADER_MAIN = "import grader, runpy; runpy.run_module('nbgrader', run_name='__main__', alter_sys=True)"


def nbgrader_env() -> dict[str, str]:
    """The environment nbgrader runs in: this interpreter's tools first, this grader importable."""
    env = dict(os.environ)
    # nbgrader runs `alembic` from PATH: the environment's bin/ must come first even when it
    # is not activated.
    env["PATH"] = os.pathsep.join([str(Path(sys.executable).parent), env.get("PATH", "")])
    # nbgrader imports the course's preprocessors from this grader.
    env["PYTHONPATH"] = os.pathsep.join(
        p for p in [str(Path(__file__).resolve().parents[2]), env.get("PYTHONPATH", "")] if p
    )
    return env


def _kill_group(proc: subprocess.Popen) -> None:
    """Kill nbgrader and whatever it started (it runs in its own session)."""
    try:
        os.killpg(proc.pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass


def run_nbgrader(course_dir: Path, *args: str, timeout: float = 1800) -> subprocess.CompletedProcess:
    """``nbgrader ARGS`` with ``course_dir`` as working directory (where nbgrader_config.py is).

    nbgrader's output (stdout and stderr, interleaved) is returned as ``stdout``. After
    ``timeout`` seconds nbgrader and everything it started are killed.

    Raises
    ------
    GraderError
        When nbgrader does not finish within ``timeout``, or fails (with the end of its log).
    """
    command = f"nbgrader {' '.join(args)}"
    proc = subprocess.Popen(
        [sys.executable, "-c", NBGRADER_MAIN, *args],
        cwd=course_dir,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        env=nbgrader_env(),
        start_new_session=True,
    )
    timed_out = threading.Event()

    def expire() -> None:
        timed_out.set()
        _kill_group(proc)

    timer = threading.Timer(timeout, expire)
    timer.daemon = True
    timer.start()
    log: list[str] = []
    try:
        for line in proc.stdout:
            log.append(line.rstrip("\n"))
        proc.wait()
    finally:
        timer.cancel()
        if proc.poll() is None:  # interrupted (Ctrl-C): nbgrader goes too
            _kill_group(proc)
            proc.wait()
        proc.stdout.close()
    if timed_out.is_set():
        raise GraderError(f"{command} did not finish within {timeout:g} s:\n" + "\n".join(log[-25:]))
    if proc.returncode != 0:
        raise GraderError(f"{command} failed (exit {proc.returncode}):\n" + "\n".join(log[-25:]))
    return subprocess.CompletedProcess(proc.args, proc.returncode, "\n".join(log) + ("\n" if log else ""), "")
