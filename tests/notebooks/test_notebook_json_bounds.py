"""What parsing a student's notebook costs is bounded before it is parsed: containers and values.

The adversarial review's A14: only brackets were counted before ``json.loads``, not values, and 63 MB
of ``1e1,`` (16 million floats, one array) took ``grader grade`` to 843 MB (73 MB for a normal
notebook). Now values are counted too (commas and brackets, a linear count of the bytes), and a
notebook beyond either bound is refused with a message that names what is too much and how to fix
it, on every route that parses a student's notebook (extraction, ``grader similarity`` on a download).
"""

from __future__ import annotations

import json
import re
import tracemalloc
import zipfile

import nbformat
import pytest

from grader.build.notebook import build_notebook
from grader.core.course import load_course
from grader.notebooks.extract import MAX_JSON_CONTAINERS, MAX_JSON_VALUES, parse_notebook, read_notebook
from grader.similarity.sources import lms_submissions
from tests.helpers import ROOT
from tests.toy_course import make_toy_course

DOCS = ROOT / "docs" / "class_grading.md"


def notebook_with(values: str) -> str:
    """A small real notebook whose metadata holds the JSON array ``values`` (the review put it there)."""
    nb = json.loads((ROOT / "tests/data/hostile/notebooks/string_cell.ipynb").read_text())
    nb["metadata"]["junk"] = "@@JUNK@@"
    return json.dumps(nb).replace('"@@JUNK@@"', values)


FLOOD = notebook_with("[" + ",".join(["1e1"] * (MAX_JSON_VALUES + 1)) + "]")  # 8 MB, 2 brackets


def test_a_flood_of_values_is_refused_before_it_is_parsed(tmp_path):
    path = tmp_path / "a1.ipynb"
    path.write_text(FLOOD)
    tracemalloc.start()
    try:
        data, problem = read_notebook(path)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert data is None and problem is not None
    assert f"more than {MAX_JSON_VALUES:,} JSON values" in problem and "clear the outputs" in problem, problem
    # Read and counted, never parsed: parsing would hold 2 million floats (64 MB and more).
    assert peak < 2 * len(FLOOD) + 2**20, f"{peak / 2**20:.0f} MiB to refuse {len(FLOOD) / 2**20:.0f} MiB"


def test_a_notebook_within_the_bounds_is_read():
    # A big plot: 300,000 points of two numbers (900,000 values, 300,001 containers).
    data, problem = parse_notebook(notebook_with("[" + ",".join(["[1, 2]"] * 300_000) + "]").encode())
    assert problem is None and len(data["metadata"]["junk"]) == 300_000


def test_the_course_notebooks_are_far_within_the_bounds():
    course = load_course(ROOT, check_files=False)
    for assignment in course.assignments:  # each as Jupyter saves it, solutions filled in
        raw = nbformat.writes(build_notebook(course, assignment)).encode()
        containers = raw.count(b"[") + raw.count(b"{")
        assert 100 * containers < MAX_JSON_CONTAINERS, (assignment.id, containers)
        assert 100 * (containers + raw.count(b",")) < MAX_JSON_VALUES, (assignment.id, raw.count(b","))


def test_the_docs_state_the_bounds_the_code_has():
    section = DOCS.read_text().split("### Notebook JSON and nbgrader metadata")[1].split("\n### ")[0]
    stated = {int(n.replace(",", "")) for n in re.findall(r"\b\d{1,3}(?:,\d{3})+\b", section)}
    assert {MAX_JSON_CONTAINERS, MAX_JSON_VALUES} <= stated, stated


@pytest.fixture(scope="module")
def toy_course(tmp_path_factory):
    return load_course(make_toy_course(tmp_path_factory.mktemp("toy") / "course"))


def test_similarity_on_a_download_refuses_the_flood_alike(toy_course, tmp_path):
    from grader.lms import read_download

    archive = tmp_path / "a1.zip"
    with zipfile.ZipFile(archive, "w") as zf:  # stored: compressed, the flood is refused as a zip bomb
        zf.writestr("mallory.ipynb", FLOOD)
    with read_download(archive, "generic") as download:
        found = lms_submissions(toy_course, download, ["double"])
    (problems,) = [s.problems for s in found.values()]
    assert any(f"more than {MAX_JSON_VALUES:,} JSON values" in p for p in problems), problems
