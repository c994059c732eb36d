"""Every route that reads a class reads it through grader.lms: the same students, the same ids, graded apart.

``grader grade-class --zip`` on each LMS's download of the toy course (``a1``: ``toy.py``'s double and
add), shaped as the LMS writes it: two students who share a name stay two with their own scores, a
non-ASCII name is graded, Brightspace's folder shape is read, a resubmission keeps the latest; the
same download unpacked gives the same ids; submission times from the LMS reach summary.csv's penalty
and final columns, with a student's own extension. And on the real course, ``grade-class DIR
--assignment ps4b`` grades a complete ps4b notebook 12/12.
"""

from __future__ import annotations

import csv
import json
import textwrap
import zipfile
from pathlib import Path

import nbformat
import pytest

from tests import hostile_archives as H
from tests.helpers import run_grader
from tests.toy_course import SOLUTIONS, make_toy_course

TOY = "\n".join(line for line in textwrap.dedent(SOLUTIONS["toy.py"]).splitlines() if "### " not in line) + "\n"
HALF = TOY.replace("return 2.0 * np.asarray(x, dtype=float)", "return np.asarray(x, dtype=float)")

DOWNLOADS = {
    "canvas": {
        "smithjohn_2001_910001_toy.py": TOY,
        "smithjohn_2002_910002_toy.py": HALF,
        "m\u00fcllerzo\u00eb_LATE_1005_900004_toy-1.py": TOY,
    },
    "moodle": {
        "Jo Lee_11_assignsubmission_file/toy.py": TOY,
        "Jo Lee_12_assignsubmission_file/toy.py": HALF,
        "Zo\u00eb M\u00fcller_1005_assignsubmission_file/toy.py": TOY,
        "Zo\u00eb M\u00fcller_1005_assignsubmission_onlinetext/onlinetext.html": "<p>done</p>",
    },
    "blackboard": {
        "A1_jsmith_attempt_2026-12-01-10-00-00_toy.py": HALF,
        "A1_jsmith_attempt_2026-12-02-10-00-00_toy.py": TOY,  # the latest attempt
        "A1_jsmith_attempt_2026-12-02-10-00-00.txt": "Name: John Smith (jsmith)\n",
        "A1_jsmith2_attempt_2026-12-01-09-00-00_toy.py": HALF,
        "A1_jsmith2_attempt_2026-12-01-09-00-00.txt": "Name: John Smith (jsmith2)\n",
    },
    "brightspace": {
        "A1/39786-640693 - John Smith - Dec 1, 2026 1000 AM/toy.py": TOY,
        "A1/39787-640694 - John Smith - Dec 3, 2026 1000 AM/toy.py": HALF,
        "A1/39788-640695 - Zo\u00eb M\u00fcller - Dec 1, 2026 0900 AM/toy.py": TOY,
        "A1/index.html": "<html></html>",
    },
}
EXPECTED = {  # student -> total of a1 (3 points: double 2, add 1; HALF's double earns a third of its 2)
    "canvas": {"canvas-2001": 3, "canvas-2002": 1.67, "canvas-1005": 3},
    "moodle": {"moodle-11": 3, "moodle-12": 1.67, "moodle-1005": 3},
    "blackboard": {"jsmith": 3, "jsmith2": 1.67},
    "brightspace": {"brightspace-640693": 3, "brightspace-640694": 1.67, "brightspace-640695": 3},
}
NAMES = {
    "canvas": {"canvas-1005": "m\u00fcllerzo\u00eb"},
    "moodle": {"moodle-1005": "Zo\u00eb M\u00fcller", "moodle-11": "Jo Lee"},
    "blackboard": {"jsmith": "John Smith"},
    "brightspace": {"brightspace-640695": "Zo\u00eb M\u00fcller"},
}


@pytest.fixture(scope="module")
def toy(tmp_path_factory) -> Path:
    course = make_toy_course(tmp_path_factory.mktemp("toy") / "course")
    yaml = course / "course.yaml"
    yaml.write_text(
        yaml.read_text().replace(
            "    title: Doubling and adding\n", "    title: Doubling and adding\n    due: 2026-12-02 00:00\n"
        )
        + "calendar:\n  late_policy: {per_day: 0.1}\n  extensions:\n"
        "    - {student: brightspace-640694, assignment: a1, due: 2026-12-04 00:00}\n"
    )
    return course


def summary(out: Path) -> dict[str, dict]:
    with open(out / "summary.csv", newline="") as handle:
        return {row["student"]: row for row in csv.DictReader(handle)}


@pytest.mark.parametrize("lms", list(DOWNLOADS))
def test_grade_class_reads_each_lms_download_and_grades_every_student_apart(toy, tmp_path, lms):
    archive = H.archive(tmp_path / f"{lms}.zip", DOWNLOADS[lms])
    out = tmp_path / "out"
    proc = run_grader(
        "grade-class", "--zip", str(archive), "--assignment", "a1", "--course", str(toy), "--out", str(out), "-j", "1"
    )
    rows = summary(out)
    assert {s: float(r["total"]) for s, r in rows.items()} == EXPECTED[lms], proc.stderr
    assert all(r["max"] == "3" and "scale" not in r for r in rows.values())  # out of a1's points alone
    manifest = json.loads((out / "class.json").read_text())
    assert {s: p["name"] for s, p in manifest["people"].items() if s in NAMES[lms]} == NAMES[lms]
    assert proc.returncode == 0, proc.stderr
    if lms == "moodle":  # the online text is named, left out by rule (nothing to fix)
        assert "left out: Zo\u00eb M\u00fcller_1005_assignsubmission_onlinetext/onlinetext.html" in proc.stderr
    # the same download unpacked: the same students under the same ids
    unpacked = tmp_path / "unpacked"
    with zipfile.ZipFile(archive) as zf:
        zf.extractall(unpacked)
    again = run_grader(
        "grade-class",
        str(unpacked),
        "--assignment",
        "a1",
        "--course",
        str(toy),
        "--out",
        str(tmp_path / "o2"),
        "-j",
        "1",
    )
    assert set(summary(tmp_path / "o2")) == set(EXPECTED[lms]), again.stderr


def test_lms_times_and_extensions_reach_summary_csv(toy, tmp_path):
    archive = H.archive(tmp_path / "brightspace.zip", DOWNLOADS["brightspace"])
    out = tmp_path / "out"
    proc = run_grader(
        "grade-class", "--zip", str(archive), "--assignment", "a1", "--course", str(toy), "--out", str(out), "-j", "1"
    )
    assert proc.returncode == 0, proc.stderr
    rows = summary(out)
    # 640694 handed in on Dec 3, a day and 10 h after a1's due date, but its own is Dec 4: on time
    assert [(rows[s]["late_penalty"], rows[s]["final"]) for s in sorted(rows)] == [
        ("0", "3"),
        ("0", "1.67"),
        ("0", "3"),
    ]
    manifest = json.loads((out / "class.json").read_text())
    assert manifest["submitted"]["brightspace-640694"] == "2026-12-03 10:00:00"
    yaml = toy / "course.yaml"
    text = yaml.read_text()
    try:
        yaml.write_text(text.replace("due: 2026-12-04 00:00", "due: 2026-12-02 12:00"))
        run_grader("grade-class", "--zip", str(archive), "--assignment", "a1", "--course", str(toy), "--out", str(out))
        row = summary(out)["brightspace-640694"]
        # 10 % of 1.67 for one started day: 0.167, to the course's precision
        assert (row["late_penalty"], row["final"]) == ("0.17", "1.5")
        feedback = run_grader("feedback", str(out))
        assert feedback.returncode == 0, feedback.stderr
        page = (out / "feedback" / "brightspace-640694.md").read_text()
        assert "John Smith \\(brightspace\\-640694\\)" in page and "after the late penalty: 1\\.50" in page, page
    finally:
        yaml.write_text(text)


@pytest.mark.slow
def test_grade_class_with_an_assignment_grades_a_complete_notebook_out_of_its_points(tmp_path):
    from tests.notebooks.test_cell_isolation import notebook

    klass = tmp_path / "class"
    klass.mkdir()
    nbformat.write(notebook("ps4b", {}), klass / "alice_ps4b.ipynb")
    out = tmp_path / "out"
    proc = run_grader("grade-class", str(klass), "--assignment", "ps4b", "--out", str(out), "-j", "1")
    assert proc.returncode == 0, proc.stderr
    assert "graded alice 12/12" in proc.stderr, proc.stderr
    row = summary(out)["alice"]
    assert (row["total"], row["max"], row["final"]) == ("12", "12", "12")
    assert run_grader("feedback", str(out)).returncode == 0
    page = (out / "feedback" / "alice.md").read_text()
    assert "**12 of 12 points**" in page and "not defined" not in page and "ps4a" not in page, page


@pytest.mark.parametrize(
    ("extra", "says"),
    [
        (["--lms", "canvas", "--name-regexp", r"(?P<student_id>\w+)_.*"], "--name-regexp and --lms name two ways"),
        (["--name-regexp", "(unclosed"], "--name-regexp:"),
    ],
)
def test_both_collecting_commands_refuse_the_same_name_options_alike(toy, tmp_path, extra, says):
    """grade-class and autograde share one check of --lms and --name-regexp: the same refusal, before any work."""
    archive = H.archive(tmp_path / "class.zip", DOWNLOADS["canvas"])
    for command in (["grade-class", "--zip", str(archive)], ["autograde", "a1", "--zip", str(archive)]):
        proc = run_grader(*command, *extra, cwd=toy, timeout=120)
        assert proc.returncode != 0, (command, proc.stdout, proc.stderr)
        assert says in proc.stderr, (command, proc.stderr)
        assert "Traceback" not in proc.stderr
