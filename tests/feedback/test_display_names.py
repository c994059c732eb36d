"""A display name the LMS writes reaches no output raw: no terminal control, no bidi override.

The adversarial review's A24: a Brightspace folder named ``... - Mallory ESC]0;PWNED BEL ESC[2J RLO evil - ...``
(the student edits that name in the LMS) reached ``feedback/<id>.html`` as it was, and raw ESC and
RLO reached the ``.md``: ``cat`` on the page retitled the instructor's terminal and cleared it, and the
override reversed the rest of the line. The feedback writer escaped markup but applied no
:func:`grader.display.visible` to the name. Now every string a feedback page, the report or a CSV file
holds goes through one escape that shows control characters and overrides as visible escapes; the
gradebook keeps the name as a CSV cell shows it (formgrader and ``nbgrader export`` read it there).
"""

from __future__ import annotations

import csv
import re

from grader.autograde.pipeline import names_of
from grader.autograde.zipcollect import Collected
from grader.lms import Submission
from tests import hostile_archives as H
from tests.helpers import run_grader
from tests.lms.test_routes import TOY
from tests.toy_course import make_toy_course

# OSC (set the title) ended by BEL, CSI (clear the screen), C1 CSI and NEL, the right-to-left override
# and isolate, a pop and a formula: all a student can type into the name the LMS shows.
NAME = "Mallory \x1b]0;PWNED\x07\x1b[2J \x9b31m\x85 \u202eevil\u2067x\u2069 =HYPERLINK(1)"
RAW = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]")


def assert_no_raw_control(text: str, where: str) -> None:
    found = RAW.search(text)
    assert found is None, (
        f"{where}: raw {found.group()!r} in ...{text[max(0, found.start() - 80) : found.end() + 40]!r}"
    )


def test_a_display_name_reaches_no_output_raw(tmp_path):
    course = make_toy_course(tmp_path / "course")
    archive = H.archive(
        tmp_path / "brightspace.zip",
        {
            f"A1/39786-640693 - {NAME} - Dec 1, 2026 1000 AM/toy.py": TOY.replace("2.0 *", ""),
            "A1/39787-640694 - Alice Smith - Dec 1, 2026 1000 AM/toy.py": TOY,
            "A1/index.html": "<html></html>",
        },
    )
    out = tmp_path / "out"
    consoles = {
        "grade-class": run_grader(
            "grade-class", "--zip", str(archive), "--assignment", "a1", "--course", str(course), "--out", str(out)
        ),
        "feedback": run_grader("feedback", str(out)),
        "report": run_grader("report", str(out)),
    }
    for command, proc in consoles.items():
        assert proc.returncode == 0, f"{command}: {proc.stderr[-2000:]}"
        assert_no_raw_control(proc.stdout + proc.stderr, f"grader {command}'s console")
    written = [p for p in out.rglob("*") if p.is_file() and p.suffix in (".html", ".md", ".csv", ".json", ".txt")]
    assert {"brightspace-640693.html", "brightspace-640693.md", "report.html", "summary.csv"} <= {
        p.name for p in written
    }
    for path in written:
        assert_no_raw_control(path.read_text(encoding="utf-8"), str(path.relative_to(out)))
    # The name is still shown, as visible text, where the student reads it.
    page = (out / "feedback" / "brightspace-640693.md").read_text()
    assert "Mallory \\\\x1b\\]0;PWNED\\\\x07" in page and "\\\\u202eevil" in page, page[:400]
    html = (out / "feedback" / "brightspace-640693.html").read_text()
    assert "Mallory \\x1b]0;PWNED\\x07\\x1b[2J \\x9b31m\\x85 \\u202eevil\\u2067x\\u2069" in html, html[:600]
    with open(out / "summary.csv", newline="") as handle:
        rows = {row["student"]: row for row in csv.DictReader(handle)}
    assert float(rows["brightspace-640694"]["total"]) > float(rows["brightspace-640693"]["total"])


def test_the_gradebook_keeps_a_display_name_as_a_csv_cell_shows_it():
    # formgrader shows the gradebook's names, and `nbgrader export` writes them into a CSV file as they are.
    collected = Collected()
    collected.people["brightspace-640693"] = Submission("brightspace", "640693", "=HYPERLINK(1) \x1b[2JMal\u202elory")
    first, last, lms_id = names_of(collected)["brightspace-640693"]
    assert (first, last, lms_id) == ("'=HYPERLINK(1)", "\\x1b[2JMal\\u202elory", "640693")
