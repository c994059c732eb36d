"""The tree is formatted and its imports are sorted as pyproject.toml's ``[tool.ruff]`` says.

``make format`` applies both (and regenerates exercises/, which ruff leaves alone: it is
generated from solutions/ and checked by ``grader stubs --check``).
"""

from __future__ import annotations

import subprocess
import sys

from tests.helpers import ROOT


def ruff(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "ruff", *args], cwd=ROOT, capture_output=True, text=True, timeout=300)


def test_the_code_is_formatted():
    proc = ruff("format", "--check", ".")
    assert proc.returncode == 0, f"run `make format`: ruff would reformat\n{proc.stdout[-4000:]}{proc.stderr[-2000:]}"


def test_the_imports_are_sorted():
    proc = ruff("check", ".")
    assert proc.returncode == 0, f"run `make format`: ruff finds\n{proc.stdout[-4000:]}{proc.stderr[-2000:]}"
