"""grader report: one self-contained HTML page that reads well (checked in headless Chromium)."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

import pytest

from grader.errors import GraderError
from grader.report.build import load_class, misconceptions, render
from grader.report.screenshot import find_chromium, screenshot
from tests.toy_course import make_toy_course, write_sample_class


@pytest.fixture(scope="module")
def results(tmp_path_factory) -> Path:
    work = tmp_path_factory.mktemp("report")
    course = make_toy_course(work / "course")
    submissions = write_sample_class(work / "class")
    proc = subprocess.run(
        [
            sys.executable,
            "-m",
            "grader",
            "grade-class",
            str(submissions),
            "--out",
            str(work / "results"),
            "--course",
            str(course),
            "-j",
            "2",
        ],
        capture_output=True,
        text=True,
        cwd=work,
        timeout=300,
    )
    assert proc.returncode == 0, proc.stderr
    return work / "results"


def test_the_report_is_one_self_contained_page(results, tmp_path):
    out = tmp_path / "page.html"
    png = tmp_path / "page.png"
    args = ["-o", str(out)] + (["--screenshot", str(png)] if find_chromium() else [])
    proc = subprocess.run(
        [sys.executable, "-m", "grader", "report", str(results), *args], capture_output=True, text=True, timeout=300
    )
    assert proc.returncode == 0, proc.stderr
    page = out.read_text()
    for heading in (
        "Scores per assignment",
        "Pass rate per function",
        "Most frequent misconceptions",
        "Submissions that hit a limit",
        "Grading time",
        "All students",
    ):
        assert heading in page
    images = re.findall(r"<img [^>]*src='([^']+)'", page)
    assert len(images) == 3 and all(src.startswith("data:image/png;base64,") for src in images)
    assert not re.search(r"(src|href)=['\"]https?:", page), "the page must not load anything from elsewhere"
    # The looping student is listed under the limits, with the function and the limit.
    limits = page.split("Submissions that hit a limit")[1].split("Grading time")[0]
    assert "hana" in limits and "time limit" in limits and "double" in limits
    assert "ada" not in limits


def test_misconceptions_are_counted_once_per_student_with_examples(results):
    data = load_class(results)
    found = {(m["function"], m["message"]): m for m in misconceptions(data)}
    wrong = found[("double", "double does not return twice its input")]
    # chloe, farid, lena submitted the wrong double; emma, jo the "half" variant (also wrong double).
    assert wrong["count"] == 5 and len(wrong["examples"]) == 3
    add = found[("add", "add does not add")]
    assert add["count"] == 2 and set(add["examples"]) == {"emma", "jo"}


def test_a_mistake_counts_once_wherever_each_student_made_it(results):
    # The same failure in each student's own cell: only the cell's In [n] and line differ.
    data = load_class(results)
    for n, record in enumerate(data.records[:3]):
        test = record.result.functions["double"].tests[0]
        test.passed = False
        test.message = (
            f'the cell under "Exercise 1: double", In [{n + 4}], line {n + 2}: NameError: name "y" is not defined'
        )
        for t in record.result.functions["double"].tests[1:]:
            t.passed = True
        record.result.functions["double"].diagnosis = None
        record.result.functions["double"].error = None
    shapes = [m for m in misconceptions(data) if "NameError" in m["message"]]
    assert len(shapes) == 1 and shapes[0]["count"] == 3, shapes
    assert "In [n], line n" in shapes[0]["message"]


def test_a_directory_that_is_not_a_class_run_is_refused(tmp_path):
    with pytest.raises(GraderError, match="no class.json"):
        load_class(tmp_path)
    (tmp_path / "class.json").write_text(json.dumps({"students": ["x"]}))
    with pytest.raises(GraderError, match="no graded submissions"):
        load_class(tmp_path)


def test_html_in_messages_is_escaped(results):
    data = load_class(results)
    test = data.records[0].result.functions["double"].tests[0]
    test.passed, test.message = False, "<script>x</script>"
    page = render(data)
    assert "<script>" not in page and "&lt;script&gt;" in page


@pytest.mark.skipif(find_chromium() is None, reason="Chromium is not installed (apt-get install chromium)")
def test_the_report_renders_in_headless_chromium(results, tmp_path):
    from PIL import Image

    html = results / "report.html"
    html.write_text(render(load_class(results)))
    png = tmp_path / "report.png"
    screenshot(html, png, width=1200, height=2400)
    image = Image.open(png).convert("L")
    assert image.size == (1200, 2400)
    # Not a blank page: dark text and plots cover a fair share of the top of the page.
    dark = sum(image.crop((0, 0, 1200, 1200)).histogram()[:128])
    assert dark > 0.01 * 1200 * 1200
