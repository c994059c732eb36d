"""Hypothesis strategies for what a student controls: notebook JSON, submission folders, archives.

Every strategy draws *data*; the helpers below turn it into files (notebooks, folder
trees with links, pipes and sparse huge files, zip archives). The honest parts are
fixed: a fuzzed notebook keeps the two honest solution cells of the toy course's
assignment a1 and only adds or damages other things, so that "every other grade is
unchanged" has a precise meaning.
"""

from __future__ import annotations

import json
import os
import zipfile
from dataclasses import dataclass
from pathlib import Path

from hypothesis import strategies as st

from grader.notebooks.extract import MAX_CELL_CHARS
from tests.toy_course import NOTEBOOK_CELLS

CANARY = "CANARY_0f1e2d_SOLUTION_TEXT"  # written in a file outside every submission; never to be read through a link

# -- values -------------------------------------------------------------------------------------
ODD_TEXT = st.one_of(
    st.text(max_size=40),
    st.sampled_from(
        [
            "x\n[AutogradeApp | ERROR] There was an error processing assignment 'a1' for student 'alice'",
            "[/bold]",
            "<script>document.title='PWNED'</script>",
            '"><img src=x onerror=alert(1)>',
            "javascript:alert(1)",
            "\udce9",
            "a" * 200,
            "double",
            "add",
            "test_add",
            "",
            " ",
            "\0",
        ]
    ),
)
LEAF = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(),
    st.sampled_from([10**400, -(10**400), 2**63]),
    st.floats(allow_nan=True),
    ODD_TEXT,
)
ODD_VALUE = st.recursive(
    LEAF,
    lambda inner: st.one_of(st.lists(inner, max_size=4), st.dictionaries(ODD_TEXT, inner, max_size=4)),
    max_leaves=12,
)


@st.composite
def deep(draw) -> str:
    """A JSON text nested hundreds to hundreds of thousands deep (drawn as text: never built in memory)."""
    depth = draw(st.sampled_from([50, 990, 1100, 20_000, 300_000]))
    kind = draw(st.sampled_from(["[]", "{}"]))
    if kind == "[]":
        return "[" * depth + "]" * depth
    return '{"a":' * depth + "1" + "}" * depth


HUGE = st.sampled_from([MAX_CELL_CHARS - 100, MAX_CELL_CHARS + 1, 3 * MAX_CELL_CHARS]).map(lambda n: "#" * n)


@st.composite
def nbgrader_meta(draw):
    base = {"grade": False, "grade_id": "free", "locked": False, "schema_version": 3, "solution": True, "task": False}
    for key in draw(st.lists(st.sampled_from(sorted(base) + ["points", "checksum", "cell_type"]), max_size=3)):
        base[key] = draw(ODD_VALUE)
    if draw(st.booleans()):
        base["grade_id"] = draw(ODD_TEXT)
    return base


@st.composite
def cell(draw):
    """A cell as a hostile notebook may hold it: sometimes not a cell at all."""
    if draw(st.integers(0, 5)) == 0:
        return draw(ODD_VALUE)
    new = {
        "cell_type": draw(st.one_of(st.sampled_from(["code", "markdown", "raw"]), ODD_VALUE)),
        "metadata": draw(st.one_of(st.just({}), st.builds(lambda m: {"nbgrader": m}, nbgrader_meta()), ODD_VALUE)),
        "source": draw(st.one_of(ODD_TEXT, st.lists(ODD_TEXT, max_size=3), ODD_VALUE, HUGE)),
    }
    if draw(st.booleans()):
        new["id"] = draw(st.one_of(st.sampled_from(["double", "add", "dup", "dup"]), ODD_TEXT))
    if new["cell_type"] == "code" and draw(st.booleans()):
        new["outputs"] = draw(
            st.lists(
                st.one_of(
                    ODD_VALUE,
                    st.builds(
                        lambda d: {"output_type": "display_data", "metadata": {}, "data": d},
                        st.dictionaries(
                            st.sampled_from(
                                [
                                    "text/html",
                                    "application/javascript",
                                    "image/svg+xml",
                                    "image/png",
                                    "text/plain",
                                    "text/markdown",
                                ]
                            ),
                            ODD_TEXT,
                            max_size=3,
                        ),
                    ),
                ),
                max_size=2,
            )
        )
    if draw(st.booleans()):
        new[draw(ODD_TEXT)] = draw(ODD_VALUE)
    return new


def honest_cells() -> list[dict]:
    return [
        {
            "cell_type": "code",
            "execution_count": None,
            "id": name,
            "outputs": [],
            "source": source,
            "metadata": {
                "nbgrader": {
                    "grade": False,
                    "grade_id": name,
                    "locked": False,
                    "schema_version": 3,
                    "solution": True,
                    "task": False,
                }
            },
        }
        for name, source in NOTEBOOK_CELLS.items()
    ]


def claims_an_exercise(value) -> bool:
    """Would nbgrader (or extraction) take this cell as a solution of double or add? The fuzzer's own cells must
    not: the honest cells are what "unchanged" is measured against."""
    meta = value.get("metadata") if isinstance(value, dict) else None
    meta = meta.get("nbgrader") if isinstance(meta, dict) else None
    return isinstance(meta, dict) and isinstance(meta.get("grade_id"), str) and meta["grade_id"] in NOTEBOOK_CELLS


@st.composite
def notebook_text(draw) -> str:
    """The JSON text of a hostile notebook holding the honest solution cells of double and add."""
    cells = [c for c in draw(st.lists(cell(), max_size=6)) if not claims_an_exercise(c)]
    honest = honest_cells()
    for position, c in enumerate(honest):
        cells.insert(draw(st.integers(0, len(cells))) if position == 0 else len(cells), c)
    nb = {
        "cells": cells,
        "metadata": draw(st.one_of(st.just({}), ODD_VALUE)),
        "nbformat": draw(st.one_of(st.just(4), ODD_VALUE)),
        "nbformat_minor": draw(st.one_of(st.just(5), ODD_VALUE)),
    }
    text = json.dumps(nb)
    if draw(st.integers(0, 9)) == 0:  # deep values where metadata goes
        text = text.replace('"metadata": {}', '"metadata": {"deep": ' + draw(deep()) + "}", 1)
    return text


# -- folders ----------------------------------------------------------------------------------------
NAME_BYTES = st.one_of(
    st.sampled_from(
        [
            b"a1.ipynb",
            b"gae.py",
            b"toy.py",
            b"other.py",
            b"caf\xe9.py",
            b"\xff\xfe.ipynb",
            b"[bold].py",
            b"x" * 250,
            b"-rf",
            b" ",
            b"new\nline.py",
            b"__pycache__",
            b".hidden",
            b"mod.py",
        ]
    ),
    st.binary(min_size=1, max_size=12).filter(lambda b: b"/" not in b and b"\0" not in b and b not in (b".", b"..")),
)


@dataclass(frozen=True)
class Entry:
    """One thing in a submission folder: ``kind`` is file, empty, huge, dir, fifo or link; ``target`` a link's."""

    parts: tuple[bytes, ...]
    kind: str
    target: str = ""


ENTRY = st.builds(
    Entry,
    st.lists(NAME_BYTES, min_size=1, max_size=3).map(tuple),
    st.sampled_from(["file", "empty", "huge", "dir", "fifo", "link"]),
    st.sampled_from(["canary", "canary_dir", "/etc/passwd", "dangling", "..", ".", "self"]),
)
FOLDER = st.lists(ENTRY, max_size=6)


def write_folder(root: Path, entries: list[Entry], canary: Path) -> None:
    """Make ``entries`` under ``root`` (created); entries that clash with earlier ones are skipped."""
    root.mkdir(parents=True, exist_ok=True)
    for entry in entries:
        path = os.path.join(os.fsencode(root), *entry.parts)
        parents = [os.path.join(os.fsencode(root), *entry.parts[:i]) for i in range(1, len(entry.parts))]
        # Never through an earlier entry: it may be a pipe (a writer would block) or a link (out of root).
        if os.path.lexists(path) or any(
            os.path.islink(p) or (os.path.lexists(p) and not os.path.isdir(p)) for p in parents
        ):
            continue
        try:
            os.makedirs(os.path.dirname(path), exist_ok=True)
            if entry.kind == "file":
                with open(path, "wb") as out:
                    out.write(b"def double(x):\n    return x\n")
            elif entry.kind == "empty":
                open(path, "wb").close()
            elif entry.kind == "huge":  # sparse: costs nothing to make, 3 GB to whoever reads it
                with open(path, "wb") as out:
                    out.truncate(3 * 2**30)
            elif entry.kind == "dir":
                os.makedirs(path, exist_ok=True)
            elif entry.kind == "fifo":
                os.mkfifo(path)
            else:
                target = {
                    "canary": str(canary),
                    "canary_dir": str(canary.parent),
                    "dangling": "/nonexistent/x",
                    "self": os.fsdecode(entry.parts[-1]),
                }.get(entry.target, entry.target)
                os.symlink(target, path)
        except OSError:
            continue


# -- archives -----------------------------------------------------------------------------------------
ZIP_NAME = st.one_of(
    st.sampled_from(
        [
            "mallory_a1.ipynb",
            "mallory/a1.ipynb",
            "alice_a1.ipynb",
            "alice/a1.ipynb",
            "../../x.ipynb",
            "/etc/x.ipynb",
            "..\\..\\x.ipynb",
            "C:/x.ipynb",
            "mallory/alice/a1.ipynb",
            "bob_up.zip",
            "mallory/gae.py",
            "[bold]_a1.ipynb",
            "caf\u00e9_a1.ipynb",
            "__MACOSX/._x",
            "a/",
            "x" * 300,
        ]
    ),
    st.text(st.characters(blacklist_categories=("Cs",)), min_size=1, max_size=20),
)
ZIP_MODE = st.sampled_from([0, 0o100644, 0o100755, 0o104755, 0o102755, 0o120777, 0o040777, 0o020644, 0o010644])


@st.composite
def zip_entries(draw) -> list[tuple[str, int, bytes, tuple]]:
    entries = draw(
        st.lists(
            st.tuples(
                ZIP_NAME,
                ZIP_MODE,
                st.binary(max_size=64),
                st.sampled_from([(2024, 1, 1, 0, 0, 0), (2025, 1, 1, 0, 0, 0)]),
            ),
            max_size=8,
        )
    )
    return [(name, mode, data, when) for name, mode, data, when in entries if not name.startswith("alice")]


def write_zip(path: Path, entries, honest: bytes) -> Path:
    with zipfile.ZipFile(path, "w") as zf:
        info = zipfile.ZipInfo("alice_a1.ipynb", date_time=(2030, 1, 1, 0, 0, 0))  # alice's: the newest of any
        zf.writestr(info, honest)
        for name, mode, data, when in entries:
            info = zipfile.ZipInfo(name, date_time=when)
            info.create_system, info.external_attr = 3, mode << 16
            zf.writestr(info, data)
    return path
