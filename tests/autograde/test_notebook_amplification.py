"""Every size derived from a notebook is bounded before it is built (issue 22, item 6)."""

from __future__ import annotations

import base64
import json
import time
import tracemalloc

import nbformat

from grader.autograde.sanitize import sanitize_notebook

PNG = base64.b64encode(b"\x89PNG\r\n\x1a\n" + bytes(100_000)).decode()  # 133 KB of base64


def test_one_attachment_referenced_thousands_of_times_is_not_multiplied():
    # 187 KB of notebook (one attachment, 4,000 references) made a 410 MB autograded notebook,
    # 2.9 GB of grader memory and 134 s: the data URL was inlined at every reference after a size
    # check that counted the cell's source only.
    cell = nbformat.v4.new_markdown_cell("![x](attachment:a.png)\n" * 4000)
    cell["attachments"] = {"a.png": {"image/png": PNG}}
    nb = nbformat.v4.new_notebook(cells=[cell])
    size = len(json.dumps(nb))
    tracemalloc.start()
    started = time.process_time()
    try:
        out = sanitize_notebook(nb)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    written = len(nbformat.writes(out))
    assert written < 16 * 2**20, f"{size / 1e3:.0f} KB of notebook became {written / 1e6:.0f} MB"
    assert peak < 128 * 2**20, f"{peak / 2**20:.0f} MiB to sanitize {size / 1e3:.0f} KB"
    assert time.process_time() - started < 30


def test_an_attachment_referenced_once_is_still_shown():
    cell = nbformat.v4.new_markdown_cell("a plot: ![x](attachment:a.png)")
    cell["attachments"] = {"a.png": {"image/png": PNG}}
    out = sanitize_notebook(nbformat.v4.new_notebook(cells=[cell]))
    assert "data:image/png;base64," + PNG[:100] in out.cells[0].source
