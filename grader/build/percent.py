"""Read a notebook written as a Python script in the "percent" format (as jupytext writes it).

Only what course notebooks use: ``# %%`` starts a code cell, ``# %% [markdown]``
(or ``[md]``) a Markdown cell whose lines are comments, an optional title after
the marker, and an optional YAML header between ``# ---`` lines at the top. Cell
metadata written as ``key=value`` after the marker is ignored. This keeps
jupytext out of the dependencies.
"""

from __future__ import annotations

import re
from pathlib import Path

import nbformat

MARKER = re.compile(r"^# %%(?P<rest>.*)$")
MARKDOWN = re.compile(r"\[(markdown|md)\]")


def _strip_comment(line: str) -> str:
    if line.startswith("# "):
        return line[2:]
    if line.strip() == "#":
        return ""
    return line


def _trim(lines: list[str]) -> list[str]:
    while lines and not lines[0].strip():
        lines.pop(0)
    while lines and not lines[-1].strip():
        lines.pop()
    return lines


def read_percent(path: Path) -> list[nbformat.NotebookNode]:
    """The cells of a percent-format script, in order (empty cells dropped)."""
    lines = Path(path).read_text(encoding="utf-8").splitlines()
    # A YAML header (jupytext's metadata) is not part of the notebook's content.
    if lines and lines[0].strip() == "# ---":
        for i in range(1, len(lines)):
            if lines[i].strip() == "# ---":
                lines = lines[i + 1 :]
                break
    cells: list[nbformat.NotebookNode] = []
    kind, body = "code", []

    def flush():
        text = "\n".join(_trim([_strip_comment(x) for x in body] if kind == "markdown" else list(body)))
        if text.strip():
            cells.append(nbformat.v4.new_markdown_cell(text) if kind == "markdown" else nbformat.v4.new_code_cell(text))

    for line in lines:
        match = MARKER.match(line)
        if match:
            flush()
            kind = "markdown" if MARKDOWN.search(match.group("rest")) else "code"
            body = []
        else:
            body.append(line)
    flush()
    return cells
