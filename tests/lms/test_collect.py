"""grader.lms: each LMS's download, shaped exactly as it writes it today, read into one submission per student.

The archives are named entry by entry as each LMS names them (Canvas's ``ContentZipper``, Moodle's
``mod_assign\\downloader``, Blackboard's Assignment File Download, Brightspace's folder per submission):
students who share a name, names with accents, display names that mimic the LMS's fields,
resubmissions, late marks. Every entry must end up collected, passed over as the LMS's (or the
system's) furniture, or left out with a reason; no two LMS ids may ever share a student.
"""

from __future__ import annotations

import zipfile
from datetime import datetime
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from grader.errors import GraderError
from grader.lms import Person, Roster, name_id, read_download, read_roster
from tests import hostile_archives as H

NB = H.NOTEBOOK


def read(tmp_path: Path, entries: dict, name: str = "download.zip", **kwargs):
    archive = H.archive(tmp_path / name, entries)
    return read_download(archive, **kwargs)


def students(download) -> dict[str, tuple]:
    """student -> (display name, LMS id, the student's file names, submitted at, late)."""
    return {
        s.student: (s.display_name, s.lms_id, sorted(f.name for f in s.files), s.submitted_at, s.late)
        for s in download.submissions
    }


def accounted(download) -> int:
    """Entries that ended somewhere: collected, passed over, or left out."""
    files = sum(len(s.files) for s in download.submissions)
    folders = sum(1 for _, why in download.passed_over if why)
    return files + folders + len(download.left_out)


# -- Canvas ---------------------------------------------------------------------------------------------------
def test_canvas_students_who_share_a_name_stay_two_and_an_accented_name_is_a_student(tmp_path):
    with read(
        tmp_path,
        {
            "smithjohn_2001_910001_ps4b.ipynb": NB % "john 2001",
            "smithjohn_2002_910002_ps4b.ipynb": NB % "john 2002",
            "m\u00fcllerzo\u00eb_1005_900004_ps4b.ipynb": NB % "zoe",
            "nguyencarol_LATE_1003_900002_ps4b.ipynb": NB % "carol",
        },
    ) as got:
        assert (got.lms, got.detected, got.left_out) == ("canvas", True, [])
        assert students(got) == {
            "canvas-2001": ("smithjohn", "2001", ["ps4b.ipynb"], None, False),
            "canvas-2002": ("smithjohn", "2002", ["ps4b.ipynb"], None, False),
            "canvas-1005": ("m\u00fcllerzo\u00eb", "1005", ["ps4b.ipynb"], None, False),
            "canvas-1003": ("nguyencarol", "1003", ["ps4b.ipynb"], None, True),
        }
        assert "2 students are named smithjohn (2001, 2002): kept apart as canvas-2001, canvas-2002" in got.notes
        john = next(s for s in got.submissions if s.student == "canvas-2001")
        assert got.read(john.files[0], 1000).decode() == NB % "john 2001"


def test_canvas_names_that_mimic_its_fields_never_move_a_file_to_another_student(tmp_path):
    with read(
        tmp_path,
        {
            # an uploaded file name holding Canvas's fields: the first fields are Canvas's
            "evef_3001_930001_x_LATE_2001_910001_ps4b.ipynb": NB % "eve",
            # a sortable name ending in _<digits> (Canvas keeps it): two readings, so it is refused
            "mallory_2001_3002_930002_ps4b.ipynb": NB % "mallory",
            "smithjohn_2001_910001_ps4b.ipynb": NB % "john",
            # a text entry is not a file; anonymous grading names no one
            "smithjohn_2001_text.html": "<p>see my notebook</p>",
            "LATE_anon_Xk3Pq_910009_ps4b-1.ipynb": NB % "anonymous",
        },
    ) as got:
        assert students(got) == {
            "canvas-3001": ("evef", "3001", ["x_LATE_2001_910001_ps4b.ipynb"], None, False),
            "canvas-2001": ("smithjohn", "2001", ["ps4b.ipynb"], None, False),
            "canvas-anon_Xk3Pq": ("anonymous Xk3Pq", "anon_Xk3Pq", ["ps4b-1.ipynb"], None, True),
        }
        reasons = {x.entry: x.reason for x in got.left_out}
        assert reasons["mallory_2001_3002_930002_ps4b.ipynb"].startswith(
            "its name can be read as user 2001's or user 3002's"
        )
        assert reasons["smithjohn_2001_text.html"].startswith("a text entry or web address handed in on Canvas")
        # the text is left out by rule (read it in SpeedGrader); the ambiguous name is a problem to fix
        assert [x.entry for x in got.problems] == ["mallory_2001_3002_930002_ps4b.ipynb"] and not got.complete


# -- Moodle ---------------------------------------------------------------------------------------------------
def test_moodle_in_every_shape_keeps_participants_apart_by_their_number(tmp_path):
    with read(
        tmp_path,
        {
            # 4.1 and later, "in folders" (the default) ...
            "Zo\u00eb M\u00fcller_1005_assignsubmission_file/ps4b.ipynb": NB % "zoe",
            "Zo\u00eb M\u00fcller_1005_assignsubmission_onlinetext/onlinetext.html": "<p>hi</p>",
            # ... two students named alike, one who took a classmate's display name ...
            "Jo Lee_11_assignsubmission_file/ps4b.ipynb": NB % "jo 11",
            "Jo Lee_12_assignsubmission_file/ps4b (final).ipynb": NB % "jo 12",
            # ... earlier versions' folders, and not in folders
            "Frank Miller_1234_assignsubmission_file_/ps4b.ipynb": NB % "frank",
            "Jane Smith_2345_assignsubmission_file_ps4b.ipynb": NB % "jane",
        },
    ) as got:
        assert got.lms == "moodle"
        assert students(got) == {
            "moodle-1005": ("Zo\u00eb M\u00fcller", "1005", ["ps4b.ipynb"], None, False),
            "moodle-11": ("Jo Lee", "11", ["ps4b.ipynb"], None, False),
            "moodle-12": ("Jo Lee", "12", ["ps4b (final).ipynb"], None, False),
            "moodle-1234": ("Frank Miller", "1234", ["ps4b.ipynb"], None, False),
            "moodle-2345": ("Jane Smith", "2345", ["ps4b.ipynb"], None, False),
        }
        assert [(x.entry, x.by_rule) for x in got.left_out] == [
            ("Zo\u00eb M\u00fcller_1005_assignsubmission_onlinetext/onlinetext.html", True)
        ]
        assert got.complete  # online text is Moodle's to show, not a problem of the download


def test_moodle_participants_find_their_roster_line_by_number_and_a_shared_name_changes_nothing(tmp_path):
    roster = Roster(
        [
            Person("zmuller", "Zo\u00eb", "M\u00fcller", lms_id="Z42", moodle_participants=("1005", "2210")),
            Person("jlee1", "Jo", "Lee", moodle_participants=("11",)),
            Person("jlee2", "Jo", "Lee"),
        ]
    )
    with read(
        tmp_path,
        {
            "Zoe\u0308 Mu\u0308ller_1005_assignsubmission_file/ps4b.ipynb": NB % "zoe",  # decomposed, as on macOS
            "Jo Lee_11_assignsubmission_file/ps4b.ipynb": NB % "jo 11",
            "Jo Lee_12_assignsubmission_file/ps4b.ipynb": NB % "jo 12",
        },
        roster=roster,
    ) as got:
        assert sorted(students(got)) == ["jlee1", "moodle-12", "zmuller"]
        assert got.notes[:2] == [
            "Jo Lee (moodle 12): no line of the roster has Moodle participant 12 in its moodle_participants; "
            "collected as moodle-12",
            "to file the 1 student(s) above under your ids, add each one's participant number to their line's "
            "moodle_participants cell (Moodle numbers participants per assignment; Moodle's grading worksheet, "
            "Assignment > View all submissions > Grading action > Download grading worksheet, lists each "
            "participant's number ('Participant 1006') with their e-mail), then collect again",
        ]


# A23: who a submission belongs to comes from the id the LMS writes, never from a name the student can edit.
MALLORY_AS_ALICE = {  # mallory renamed herself "Alice Smith" in each LMS; alice is on the roster
    "canvas": "smithalice_3006_930006_ps4b.ipynb",
    "moodle": "Alice Smith_1006_assignsubmission_file/ps4b.ipynb",
    "blackboard": "Problem Set 4b_mallory_attempt_2026-12-01-22-30-00_ps4b.ipynb",
    "brightspace": "39786-640006 - Alice Smith - Oct 10, 2025 1022 AM/ps4b.ipynb",
}
MALLORY_ID = {"canvas": "3006", "moodle": "1006", "blackboard": "mallory", "brightspace": "640006"}


@pytest.mark.parametrize("lms", sorted(MALLORY_AS_ALICE))
@pytest.mark.parametrize("alice_name", ["Alice Smith", "alice  SMITH", "smithalice"])
def test_a_name_a_student_gave_herself_never_files_her_submission_under_a_roster_student(tmp_path, lms, alice_name):
    entries = {MALLORY_AS_ALICE[lms]: NB % "mallory"}
    if lms == "blackboard":  # the receipt Blackboard writes: the display name, then the username
        entries["Problem Set 4b_mallory_attempt_2026-12-01-22-30-00.txt"] = "Name: Alice Smith (mallory)\n"
    first, _, last = alice_name.rpartition(" ") if " " in alice_name else (alice_name, "", "")
    roster = Roster([Person("alice", first, last, "alice@u.edu"), Person("mallory", "Mallory", "Jones", "m@u.edu")])
    with read(tmp_path, entries, lms=lms, roster=roster) as got:
        (sub,) = got.submissions
        assert (sub.lms_id, sub.student) == (
            MALLORY_ID[lms],
            name_id(MALLORY_ID[lms]) if lms == "blackboard" else f"{lms}-{MALLORY_ID[lms]}",
        )
        missing = f"Moodle participant {MALLORY_ID[lms]} in its moodle_participants" if lms == "moodle" else ""
        missing = missing or f"lms_id {MALLORY_ID[lms]}"
        cell = "moodle_participants" if lms == "moodle" else "lms_id"
        assert len(got.notes) == 2 and got.notes[0].endswith(
            f": no line of the roster has {missing}; collected as {sub.student}"
        ), got.notes
        assert got.notes[1].startswith("to file the 1 student(s) above under your ids, ")
        assert f"to their line's {cell} cell" in got.notes[1] or f"in their line's {cell} cell" in got.notes[1]
    # With her own id on her own line she is herself, whatever she calls herself.
    ids = {"moodle_participants": (MALLORY_ID[lms],)} if lms == "moodle" else {"lms_id": MALLORY_ID[lms]}
    roster = Roster([Person("alice", first, last), Person("mallory", "Mallory", "Jones", **ids)])
    with read(tmp_path, entries, name=f"again-{lms}.zip", lms=lms, roster=roster) as got:
        assert [s.student for s in got.submissions] == ["mallory"] and got.notes == []


def test_alice_and_mallory_named_alike_on_moodle_stay_two_and_alice_keeps_her_roster_id(tmp_path):
    roster = Roster(
        [
            Person("alice", "Alice", "Smith", lms_id="A1", moodle_participants=("1005",)),
            Person("mallory", "Mallory", "Jones"),
        ]
    )
    with read(
        tmp_path,
        {
            "Alice Smith_1006_assignsubmission_file/ps4b.ipynb": NB % "mallory",
            "Alice Smith_1005_assignsubmission_file/ps4b.ipynb": NB % "alice",
        },
        roster=roster,
    ) as got:
        assert students(got) == {
            "alice": ("Alice Smith", "1005", ["ps4b.ipynb"], None, False),
            "moodle-1006": ("Alice Smith", "1006", ["ps4b.ipynb"], None, False),
        }
        assert any("no line of the roster has Moodle participant 1006" in n for n in got.notes), got.notes
        assert "2 students are named Alice Smith (1006, 1005): kept apart as moodle-1006, alice" in got.notes
        assert not any("both match" in n for n in got.notes)


def test_an_id_two_lines_share_files_neither_under_either(tmp_path):
    # A gradebook's students are not checked as a roster file is: two with one LMS id are neither's.
    gradebook = Roster([Person("alice", lms_id="2002"), Person("alice2", lms_id="2002")], complete=False)
    with read(tmp_path, {"smithalice_2002_910001_ps4b.ipynb": NB % "alice"}, roster=gradebook) as got:
        assert sorted(students(got)) == ["canvas-2002"]
    # A roster line holding two participants of one Moodle download (a typing slip) files neither.
    roster = Roster([Person("alice", moodle_participants=("1005", "1006"))])
    with read(
        tmp_path,
        {
            "Alice_1005_assignsubmission_file/ps4b.ipynb": NB % "a",
            "Mal_1006_assignsubmission_file/ps4b.ipynb": NB % "m",
        },
        name="moodle.zip",
        roster=roster,
    ) as got:
        assert sorted(students(got)) == ["moodle-1005", "moodle-1006"]
        assert any("both match the roster's alice" in n and "fix that line of the roster" in n for n in got.notes)


def test_a_gradebook_without_moodle_numbers_says_once_how_to_file_moodle_participants(tmp_path):
    gradebook = Roster([Person("alice", "Alice", "Smith", lms_id="A1")], complete=False)
    entries = {
        "Alice Smith_1005_assignsubmission_file/ps4b.ipynb": NB % "alice",
        "Bob Li_1007_assignsubmission_file/ps4b.ipynb": NB % "bob",
    }
    with read(tmp_path, entries, roster=gradebook) as got:
        assert sorted(students(got)) == ["moodle-1005", "moodle-1007"]
        assert len(got.notes) == 1 and got.notes[0].startswith("2 Moodle participant(s) collected under their number")
        assert "give a roster and add each one's participant number to their line's moodle_participants" in got.notes[0]
    # A gradebook's students are those met so far: one it lacks on another LMS is no news.
    with read(tmp_path, {"lib_3001_930001_ps4b.ipynb": NB % "x"}, name="canvas.zip", roster=gradebook) as got:
        assert sorted(students(got)) == ["canvas-3001"] and got.notes == []


def test_the_roster_file_reads_moodle_participants_and_refuses_what_would_merge_two_students(tmp_path):
    path = tmp_path / "roster.csv"
    path.write_text(
        "id,name,lms_id,moodle_participants\nalice,Alice Smith,A1,1005 2210;3307\nbob,Bob Li,B2,\n",
        encoding="utf-8",
    )
    people = {p.id: p for p in read_roster(path)}
    assert people["alice"].moodle_participants == ("1005", "2210", "3307") and people["bob"].moodle_participants == ()
    for rows, says in (
        ("alice,Alice,A1,1005\nbob,Bob,B2,2210 1005\n", "roster line 3: Moodle participant 1005 is also on line 2"),
        ("alice,Alice,A1,Participant 1005\n", "roster line 2: moodle_participants holds 'Participant', not a"),
        ("alice,Alice,A1,\uff11\uff10\n", "moodle_participants holds"),  # full-width digits are no number
    ):
        path.write_text("id,name,lms_id,moodle_participants\n" + rows, encoding="utf-8")
        with pytest.raises(GraderError, match=says):
            read_roster(path)


# -- Blackboard -----------------------------------------------------------------------------------------------
def test_blackboard_keeps_the_latest_attempt_and_reads_the_username_from_its_receipt(tmp_path):
    with read(
        tmp_path,
        {
            "Problem Set 4b_f_miller_attempt_2026-12-01-22-30-00_ps4b.ipynb": NB % "first",
            "Problem Set 4b_f_miller_attempt_2026-12-01-22-30-00.txt": "Name: Frank Miller (f_miller)\nComments: x\n",
            "Problem Set 4b_f_miller_attempt_2026-12-02-08-00-00_ps4b.ipynb": NB % "second",
            "Problem Set 4b_f_miller_attempt_2026-12-02-08-00-00.txt": "Name: Frank Miller (f_miller)\n",
            "Problem Set 4b_jsmith_attempt_2026-12-01-09-00-00_ps4b.ipynb": NB % "jane",
        },
        time_zone="Europe/Paris",
    ) as got:
        assert students(got) == {
            "f_miller": ("Frank Miller", "f_miller", ["ps4b.ipynb"], datetime(2026, 12, 2, 7, 0), False),
            "jsmith": ("jsmith", "jsmith", ["ps4b.ipynb"], datetime(2026, 12, 1, 8, 0), False),
        }
        assert [(x.entry, x.by_rule) for x in got.left_out] == [
            ("Problem Set 4b_f_miller_attempt_2026-12-01-22-30-00_ps4b.ipynb", True)
        ]
        assert got.complete and len(got.passed_over) == 2  # the receipts


# -- Brightspace ----------------------------------------------------------------------------------------------
def test_brightspace_folder_per_submission_with_or_without_the_assignment_folder(tmp_path):
    entries = {
        "39786-640693 - Aiden Rodriguez - Oct 10, 2025 1022 AM/ps4b.ipynb": NB % "aiden",
        "39787-640694 - Jane Smith - Oct 11, 2025 130 PM/ps4b.ipynb": NB % "jane, first",
        "39799-640694 - Jane Smith - Oct 12, 2025 905 AM/ps4b.ipynb": NB % "jane, again",
        # a display name that mimics the folder's date: the folder's own date is its last field
        "39790-640695 - Eve - Nov 1, 2025 0100 AM - Dec 9, 2025 1100 PM/ps4b.ipynb": NB % "eve",
        "index.html": "<html>the download's index</html>",
    }
    for name, wrapped in (
        ("plain.zip", entries),
        ("wrapped.zip", {f"Problem Set 4b/{k}": v for k, v in entries.items()}),
    ):
        (tmp_path / name).mkdir()
        with read(tmp_path / name, wrapped, name=name, time_zone="America/Toronto") as got:
            assert got.lms == "brightspace", name
            assert students(got) == {
                "brightspace-640693": (
                    "Aiden Rodriguez",
                    "640693",
                    ["ps4b.ipynb"],
                    datetime(2025, 10, 10, 14, 22),
                    False,
                ),
                "brightspace-640694": ("Jane Smith", "640694", ["ps4b.ipynb"], datetime(2025, 10, 12, 13, 5), False),
                "brightspace-640695": (
                    "Eve - Nov 1, 2025 0100 AM",
                    "640695",
                    ["ps4b.ipynb"],
                    datetime(2025, 12, 10, 4, 0),
                    False,
                ),
            }
            assert [x.by_rule for x in got.left_out] == [True] and "Oct 11" not in got.left_out[0].reason
            assert [why for _, why in got.passed_over] == ["Brightspace's index of the download"]


def test_brightspace_flat_names_are_never_dated_earlier_than_the_lms_wrote(tmp_path):
    with read(
        tmp_path,
        {
            "39788-640696 - Eve - Nov 1, 2026 0100 AM - X - Dec 9, 2026 1000 AM - ps4b.ipynb": NB % "eve",
            "39789-640697 - Sam - Dec 1, 2026 1000 AM - ps4b.ipynb": NB % "sam",
        },
    ) as got:
        eve = next(s for s in got.submissions if s.lms_id == "640696")
        assert (
            eve.submitted_at == datetime(2026, 12, 9, 10, 0)
            and "the latest, Dec 9, 2026 1000 AM, is taken" in eve.notes[0]
        )
        assert students(got)["brightspace-640697"][3] == datetime(2026, 12, 1, 10, 0)


# -- every download -------------------------------------------------------------------------------------------
def test_an_lms_given_by_name_applies_and_a_wrong_one_says_what_to_do(tmp_path):
    with read(tmp_path, {"smithjohn_2001_910001_ps4b.ipynb": NB % "john"}, lms="moodle") as got:
        assert got.submissions == []
        assert got.left_out[0].reason.startswith("its name is not shaped like a moodle download's")
    with pytest.raises(GraderError, match="a pattern for the names and the canvas shape are two ways"):
        read(tmp_path, {"a.ipynb": "{}"}, lms="canvas", name_regexp="(?P<student_id>.+)")


def test_a_folder_is_read_as_the_same_archive_would_be(tmp_path):
    folder = tmp_path / "unpacked"
    (folder / "39786-640693 - Aiden Rodriguez - Oct 10, 2025 1022 AM").mkdir(parents=True)
    (folder / "39786-640693 - Aiden Rodriguez - Oct 10, 2025 1022 AM" / "ps4b.ipynb").write_text(NB % "aiden")
    (folder / "index.html").write_text("<html></html>")
    (folder / "link.ipynb").symlink_to("/etc/passwd")
    with read_download(folder) as got:
        assert sorted(students(got)) == ["brightspace-640693"]
        assert [x.reason.split(";")[0] for x in got.left_out] == ["a symbolic link"]


def test_ids_are_made_one_way_and_never_meet():
    assert name_id("alice") == "alice"
    assert name_id("m\u00fcllerzo\u00eb") == name_id("mu\u0308llerzoe\u0308")  # one name, two spellings
    assert name_id("m\u00fcllerzo\u00eb") != name_id("mullerzoe") and name_id("mullerzoe") == "mullerzoe"
    assert name_id("Jo Lee").startswith("Jo.Lee-") and name_id("\u674e\u660e").startswith("student-")


# -- the property: any archive ----------------------------------------------------------------------------------
NAMES = st.sampled_from(
    [
        "smithjohn_2001_910001_ps4b.ipynb",
        "smithjohn_2002_910002_ps4b.ipynb",
        "smithjohn_LATE_2001_910003_ps4b-1.ipynb",
        "mallory_2001_3002_930002_ps4b.ipynb",
        "Jo Lee_11_assignsubmission_file/ps4b.ipynb",
        "Jo Lee_12_assignsubmission_file_ps4b.ipynb",
        "Problem Set_fm_attempt_2026-12-01-22-30-00_ps4b.ipynb",
        "Problem Set_fm_attempt_2026-12-01-22-30-00.txt",
        "1-640693 - Aiden - Oct 10, 2025 1022 AM/ps4b.ipynb",
        "2-640693 - Aiden - Oct 11, 2025 1022 AM - ps4b.ipynb",
        "Problem Set 4b/3-640694 - Eve - Oct 10, 2025 1022 AM/ps4b.ipynb",
        "index.html",
        "alice_ps4b.ipynb",
        "m\u00fcllerzo\u00eb/ps4b.ipynb",
        "__MACOSX/._x",
        ".DS_Store",
        "folder/",
        "../escape.ipynb",
        "/abs.ipynb",
        "nested.zip",
    ]
)
TEXT = st.text(alphabet="abc_-19 \u00e9/.", min_size=1, max_size=24)


@settings(max_examples=60, deadline=None, derandomize=True, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    names=st.lists(st.one_of(NAMES, TEXT), min_size=1, max_size=12, unique=True),
    lms=st.sampled_from(["auto", "canvas", "moodle", "blackboard", "brightspace", "generic"]),
)
def test_any_archive_every_entry_is_collected_passed_over_or_reported_and_no_two_ids_share_a_student(
    tmp_path_factory, names, lms
):
    path = tmp_path_factory.mktemp("any") / "download.zip"
    with zipfile.ZipFile(path, "w") as zf:
        for name in names:
            zf.writestr(name, NB % name)
    with read_download(path, lms) as got:
        collected = sum(len(s.files) for s in got.submissions)
        assert collected + len(got.passed_over) + len(got.left_out) == got.entries == len(names)
        seen = [(f.entry.index) for s in got.submissions for f in s.files]
        assert len(seen) == len(set(seen))  # no entry collected twice
        by_student: dict[str, set] = {}
        for s in got.submissions:
            by_student.setdefault(s.student, set()).add((s.lms, s.lms_id))
        assert all(len(ids) == 1 for ids in by_student.values()), by_student
        assert all(x.reason for x in got.left_out)
