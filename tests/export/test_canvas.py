"""grader export --lms canvas: a file Canvas imports as it is (issue 27, item 6).

Canvas matches an import's headers to the columns of its own gradebook export and creates a new
assignment for any other; it finds students by its ID. The file's headers and identifying cells come
from that export (or course.yaml's lms.columns, or the roster), never from the grader's own ids.
"""

from __future__ import annotations

import pytest

from grader.calendar import late_penalty
from grader.errors import GraderError
from grader.export.canvas import canvas_columns, read_canvas_gradebook
from grader.export.roster import ExportPlan, export_rows
from grader.lms import Person, read_roster

# As Canvas writes it today (Grades > Export > Export Entire Gradebook): a Points Possible row, and for
# assignments whose grades are posted by hand a Manual Posting row, before the students.
CANVAS_EXPORT = (
    "Student,ID,SIS User ID,SIS Login ID,Section,Problem Set 4a (55500),Generalized advantage estimation (55501),"
    "Current Points,Final Points,Current Score\n"
    ",,,,,Manual Posting,,,,\n"
    "    Points Possible,,,,,18.00,12.00,(read only),(read only),(read only)\n"
    '"Smith, John",2001,S-1,jsmith1,RL 101,,,0.00,0.00,\n'
    '"Smith, John",2002,S-2,jsmith2,RL 101,,,0.00,0.00,\n'
    '"Müller, Zoë",1005,S-5,zmuller,RL 101,,,0.00,0.00,\n'
)
ASSIGNMENTS = [("ps4a", "Score functions and baselines"), ("ps4b", "Generalized advantage estimation")]


def test_a_canvas_export_gives_the_columns_and_the_students_an_import_matches(tmp_path):
    path = tmp_path / "grades.csv"
    path.write_text(CANVAS_EXPORT, encoding="utf-8")
    book = read_canvas_gradebook(path)
    assert book.fixed == ["Student", "ID", "SIS User ID", "SIS Login ID", "Section"]
    assert book.columns == ["Problem Set 4a (55500)", "Generalized advantage estimation (55501)"]
    assert sorted(book.students) == ["1005", "2001", "2002"]
    # ps4b by its title; ps4a's Canvas name is neither its id nor its title: course.yaml names it
    with pytest.raises(GraderError, match=r"no column of the Canvas gradebook is named ps4a .*lms: \{columns"):
        canvas_columns(ASSIGNMENTS, book, {})
    columns = canvas_columns(ASSIGNMENTS, book, {"ps4a": {"canvas": "Problem Set 4a (55500)"}})
    assert columns == {"ps4a": "Problem Set 4a (55500)", "ps4b": "Generalized advantage estimation (55501)"}
    people = [
        (Person("canvas-2001", "smithjohn", lms_id="2001"), {"ps4a": 17.5, "ps4b": 12.0}),
        (Person("canvas-2002", "smithjohn", lms_id="2002"), {"ps4a": None, "ps4b": 12 - late_penalty(12, 86400, 0.1)}),
        (Person("canvas-1005", "müllerzoë", lms_id="1005"), {"ps4a": 18.0, "ps4b": 10.675}),
        (Person("alice"), {"ps4a": 18.0, "ps4b": 12.0}),  # no Canvas ID: Canvas could not match the row
    ]
    plan = ExportPlan(columns=columns, canvas=book)
    rows = export_rows("canvas", {"ps4a": 18.0, "ps4b": 12.0}, people, plan)
    assert rows == [
        ["Student", "ID", "SIS User ID", "SIS Login ID", "Section", *columns.values()],
        ["Points Possible", "", "", "", "", "18", "12"],
        ["Smith, John", "2001", "S-1", "jsmith1", "RL 101", "17.50", "12"],
        ["Smith, John", "2002", "S-2", "jsmith2", "RL 101", "", "10.80"],
        ["Müller, Zoë", "1005", "S-5", "zmuller", "RL 101", "18", "10.68"],
    ]
    assert plan.left_out == ["alice: no Canvas ID (give the roster's lms_id: `grader roster`)"]


def test_without_canvas_export_the_sis_columns_come_from_the_roster_only(tmp_path):
    roster = tmp_path / "roster.csv"
    roster.write_text("id,name,lms_id,sis_user_id,sis_login_id,section\nalice,Alice Martin,1001,S-77,amartin,S1\n")
    people = read_roster(roster)
    grades = [
        (Person("alice", "Alice", "Martin", lms_id="1001"), {"ps4b": 12.0}),
        (Person("bob", "Bob", lms_id="1002"), {"ps4b": 3.0}),
    ]
    plan = ExportPlan(columns={"ps4b": "ps4b"}, roster={p.id: p for p in people})
    rows = export_rows("canvas", {"ps4b": 12.0}, grades, plan)
    assert rows[2:] == [["Martin, Alice", "1001", "S-77", "amartin", "S1", "12"], ["Bob", "1002", "", "", "", "3"]]
    assert all("alice" not in row[3] and "bob" not in row[3] for row in rows[2:])  # never the grader's id


def test_a_roster_never_gives_one_lms_id_to_two_students(tmp_path):
    roster = tmp_path / "roster.csv"
    roster.write_text("id,name,lms_id\nalice,Alice Martin,1001\nbob,Bob Stone,1001\n")
    with pytest.raises(GraderError, match="roster line 3: lms_id 1001 is also on line 2"):
        read_roster(roster)


def test_a_late_penalty_is_kept_to_the_hundredth():
    assert late_penalty(12, 1, 0.1) == 1.2 and repr(late_penalty(12, 1, 0.1)) == "1.2"
    assert late_penalty(3, 86401, 0.1) == 0.6 and late_penalty(10.675, 1, 0.1) == 1.07
