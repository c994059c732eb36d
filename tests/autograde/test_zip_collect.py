"""`grader autograde --zip`: an LMS download is read entry by entry, and a bad entry costs that entry only.

The archives are built by :mod:`tests.hostile_archives`; a whole `--zip` run on the toy
course is in ``tests/autograde/test_hostile_e2e.py``.
"""

from __future__ import annotations

import os
import stat
import zipfile
from pathlib import Path

import pytest

from grader.autograde.zipcollect import MAX_ENTRY_BYTES, LmsDownload, collect_zip
from grader.errors import GraderError
from grader.lms import Person, Roster, name_id
from tests import hostile_archives as H


def collect(tmp_path: Path, archive: Path, **kwargs):
    course_dir = tmp_path / "course"
    course_dir.mkdir(exist_ok=True)
    kwargs.setdefault("notebooks", ["a1.ipynb"])
    download = LmsDownload(archive, kwargs.pop("lms", "auto"), kwargs.pop("name_regexp", None))
    return course_dir, collect_zip(course_dir, "a1", download, **kwargs)


def submitted(course_dir: Path, timestamps: bool = False) -> dict[str, str]:
    """'student/file' -> text of everything under submitted/ (timestamp.txt only if asked)."""
    root = course_dir / "submitted"
    return {
        p.relative_to(root).as_posix(): p.read_text()
        for p in sorted(root.rglob("*"))
        if p.is_file() and (timestamps or p.name != "timestamp.txt")
    }


def test_the_documented_shapes_are_collected(tmp_path):
    archive = H.archive(
        tmp_path / "download.zip",
        {
            "alice_a1 (1).ipynb": H.NOTEBOOK % "alice",  # <student>_<anything>.ipynb, renamed by the LMS
            "bob.ipynb": H.NOTEBOOK % "bob",  # <student>.ipynb
            "carol/a1.ipynb": H.NOTEBOOK % "carol",  # <student>/<file>
            "carol/gae.py": "def gae_advantages(): pass\n",  # a lab module
            "download/dave/a1.ipynb": H.NOTEBOOK % "dave",  # inside a folder named like the archive
            "__MACOSX/._alice_a1.ipynb": "junk",
            ".DS_Store": "junk",
        },
    )
    course_dir, got = collect(tmp_path, archive, modules=["gae.py"])
    assert submitted(course_dir) == {
        "alice/a1/a1.ipynb": H.NOTEBOOK % "alice",
        "bob/a1/a1.ipynb": H.NOTEBOOK % "bob",
        "carol/a1/a1.ipynb": H.NOTEBOOK % "carol",
        "carol/a1/gae.py": "def gae_advantages(): pass\n",
        "dave/a1/a1.ipynb": H.NOTEBOOK % "dave",
    }
    assert got.problems == [] and got.files == 5


def test_a_custom_name_regexp_still_works(tmp_path):
    archive = H.archive(tmp_path / "d.zip", {"a1--erin--attempt2.ipynb": H.NOTEBOOK % "erin"})
    course_dir, got = collect(tmp_path, archive, name_regexp=r"a1--(?P<student_id>\w+)--(?P<file_id>.+)")
    assert submitted(course_dir) == {"erin/a1/a1.ipynb": H.NOTEBOOK % "erin"}
    with pytest.raises(GraderError, match="student_id"):
        collect(tmp_path, archive, name_regexp=r"(?P<who>\w+)")


def test_a_nested_archive_is_never_unpacked(tmp_path):
    # mallory's upload is a zip holding alice/a1.ipynb: nbgrader unpacked it and filed it as alice's.
    archive = H.nested_impersonation(tmp_path / "download.zip")
    course_dir, got = collect(tmp_path, archive)
    assert submitted(course_dir) == {"alice/a1/a1.ipynb": H.NOTEBOOK % "alice"}
    assert any(p.startswith("mallory_upload.zip: an archive inside the archive") for p in got.problems)


def test_a_folder_inside_a_students_folder_never_names_another_student(tmp_path):
    archive = H.archive(
        tmp_path / "d.zip", {"alice/a1.ipynb": H.NOTEBOOK % "alice", "mallory/alice/a1.ipynb": H.NOTEBOOK % "mallory"}
    )
    course_dir, got = collect(tmp_path, archive)
    assert submitted(course_dir) == {"alice/a1/a1.ipynb": H.NOTEBOOK % "alice"}
    assert got.problems == [
        "mallory/alice/a1.ipynb: in a sub-folder of the student's folder (only the files at its top are collected)"
    ]


def test_mode_bits_are_never_applied(tmp_path):
    archive = H.setuid_entry(tmp_path / "d.zip")
    course_dir, got = collect(tmp_path, archive)
    path = course_dir / "submitted/mallory/a1/a1.ipynb"
    assert stat.S_IMODE(path.stat().st_mode) == 0o644
    for folder in (path.parent, path.parent.parent):
        assert stat.S_IMODE(folder.stat().st_mode) == 0o755


def test_links_traversal_and_absolute_names_are_refused(tmp_path):
    archive = H.escapes(tmp_path / "d.zip")
    course_dir, got = collect(tmp_path, archive)
    assert submitted(course_dir) == {"alice/a1/a1.ipynb": H.NOTEBOOK % "alice"}
    assert not (tmp_path / "escaped.ipynb").exists() and not Path("/tmp/grader-zip-escaped.ipynb").exists()
    assert not any(p.is_symlink() for p in (course_dir / "submitted").rglob("*"))
    text = "\n".join(got.problems)
    for reason in ("a symbolic link", "climbs out of its folder", "an absolute name"):
        assert reason in text, text


def test_duplicates_keep_the_newest_and_never_stop_the_class(tmp_path):
    archive = H.archive(
        tmp_path / "d.zip",
        {
            "alice_a1.ipynb": ("old", (2024, 1, 1, 0, 0, 0)),
            "alice_a1 (2).ipynb": ("new", (2024, 1, 2, 0, 0, 0)),
            "bob_a1.ipynb": H.NOTEBOOK % "bob",
        },
    )
    course_dir, got = collect(tmp_path, archive)
    assert submitted(course_dir) == {"alice/a1/a1.ipynb": "new", "bob/a1/a1.ipynb": H.NOTEBOOK % "bob"}
    # Left out by rule, said so, and not a problem: the exit status stays 0.
    assert got.problems == [] and got.complete
    assert got.by_rule == [
        "alice_a1.ipynb: an earlier copy of a1.ipynb by alice; the later one (alice_a1 (2).ipynb) is collected"
    ]


def test_every_name_is_a_student_and_ids_are_made_the_same_way_as_everywhere(tmp_path):
    """A folder name that is not a usable id as it is (accents, markup) is still a student, under the id
    grader.lms.identity.name_id makes of it on every route; a name that gives no student is reported."""
    archive = H.archive(
        tmp_path / "d.zip",
        {
            "alice_a1.ipynb": H.NOTEBOOK % "alice",
            "[bold]x/a1.ipynb": "1",
            "_a1.ipynb": "2",
            "caf\u00e9/a1.ipynb": "3",
            "a1.pdf": "4",
        },
    )
    course_dir, got = collect(tmp_path, archive)
    markup, cafe = name_id("[bold]x"), name_id("caf\u00e9")
    assert sorted(submitted(course_dir)) == ["alice/a1/a1.ipynb", f"{markup}/a1/a1.ipynb", f"{cafe}/a1/a1.ipynb"]
    assert cafe.startswith("cafe-") and markup.startswith("bold.x-")
    assert got.problems == [
        "_a1.ipynb: its name gives no student; give the LMS with --lms (canvas, moodle, blackboard, brightspace) "
        "or the names' shape with --name-regexp '(?P<student_id>...)_(?P<file_id>...)', then run this command again",
        "a1.pdf: not a notebook or module of the assignment",
    ]


def test_sizes_are_bounded_per_entry_by_ratio_and_by_the_bytes_actually_read(tmp_path):
    archive = H.oversized(tmp_path / "d.zip", MAX_ENTRY_BYTES)
    course_dir, got = collect(tmp_path, archive)
    assert list(submitted(course_dir)) == ["alice/a1/a1.ipynb"]
    text = "\n".join(got.problems)
    assert "more than the 64 MB" in text and "to 1 (a zip bomb?)" in text, text
    (tmp_path / "lying").mkdir()
    course_dir, got = collect(tmp_path / "lying", H.lying_size(tmp_path / "lying.zip"))
    assert list(submitted(course_dir)) == ["alice/a1/a1.ipynb"]
    assert got.problems[0].startswith("mallory_a1.ipynb: unreadable"), got.problems


def test_a_collected_student_replaces_their_old_submission_only(tmp_path):
    course_dir = tmp_path / "course"
    old = course_dir / "submitted/alice/a1"
    old.mkdir(parents=True)
    (old / "stale.py").write_text("old")
    (course_dir / "submitted/bob/a1").mkdir(parents=True)
    (course_dir / "submitted/bob/a1/a1.ipynb").write_text("bob's")
    archive = H.archive(tmp_path / "d.zip", {"alice_a1.ipynb": "new"})
    collect_zip(course_dir, "a1", LmsDownload(archive), ["a1.ipynb"])
    assert submitted(course_dir) == {"alice/a1/a1.ipynb": "new", "bob/a1/a1.ipynb": "bob's"}


def test_a_file_that_is_not_a_zip_is_a_clear_error(tmp_path):
    bad = tmp_path / "d.zip"
    bad.write_bytes(b"not a zip")
    with pytest.raises(GraderError, match="not a readable zip file"):
        collect(tmp_path, bad)


def test_archives_are_written_without_following_a_planted_link(tmp_path):
    course_dir = tmp_path / "course"
    (course_dir / "downloaded/a1").mkdir(parents=True)
    outside = tmp_path / "outside"
    outside.mkdir()
    (course_dir / "downloaded/a1/extracted").symlink_to(outside)
    (course_dir / "submitted").mkdir()
    (course_dir / "submitted/alice").symlink_to(outside)
    collect_zip(course_dir, "a1", LmsDownload(H.archive(tmp_path / "d.zip", {"alice_a1.ipynb": "x"})), ["a1.ipynb"])
    assert list(outside.iterdir()) == []
    assert submitted(course_dir) == {"alice/a1/a1.ipynb": "x"}
    assert not os.path.islink(course_dir / "submitted/alice")


def test_a_zip_entry_is_read_by_zipfile_not_unpacked_by_shell(tmp_path):
    # Belt and braces: the collector's own staging never holds a link or an executable bit.
    archive = H.setuid_entry(tmp_path / "d.zip")
    course_dir, _ = collect(tmp_path, archive)
    for path in (course_dir / "downloaded").rglob("*"):
        assert not path.is_symlink() and not stat.S_IMODE(path.lstat().st_mode) & 0o7111 or path.is_dir()
    with zipfile.ZipFile(archive) as zf:
        assert zf.getinfo("mallory_a1.ipynb").external_attr >> 16 & stat.S_ISUID


# -- the LMSs' own downloads, as collected for autograde (the shapes themselves: tests/lms/) ----------------
def lms_collect(tmp_path: Path, entries: dict, **kwargs):
    archive = H.archive(tmp_path / kwargs.pop("archive_name", "submissions.zip"), entries)
    kwargs.setdefault("modules", ["score_functions.py"])
    return collect(tmp_path, archive, **kwargs)


def test_an_lms_named_explicitly_says_which_names_do_not_fit_and_what_to_do(tmp_path):
    course_dir, got = lms_collect(
        tmp_path,
        {"millerfrank_1234_567890_a1.ipynb": H.NOTEBOOK % "frank", "frank.ipynb": H.NOTEBOOK % "x"},
        lms="canvas",
    )
    assert list(submitted(course_dir)) == ["canvas-1234/a1/a1.ipynb"]
    assert got.problems == [
        "frank.ipynb: its name is not shaped like a canvas download's (e.g. smithjohn_LATE_2001_910001_ps4b.ipynb)"
        "; if it is a student's file, rename it so and collect again"
    ]
    assert not got.complete
    with pytest.raises(GraderError, match="one of auto, canvas, moodle, blackboard, brightspace, generic"):
        lms_collect(tmp_path, {"a.ipynb": "{}"}, lms="sakai")


def test_a_module_of_a_notebook_assignment_is_collected_and_the_release_stands_in_for_a_missing_notebook(tmp_path):
    course_dir = tmp_path / "course"
    (course_dir / "release" / "a1").mkdir(parents=True)
    (course_dir / "release" / "a1" / "a1.ipynb").write_text(H.NOTEBOOK % "release")
    course_dir, got = lms_collect(
        tmp_path,
        {
            "millerfrank_1234_567890_a1.ipynb": H.NOTEBOOK % "frank",
            "millerfrank_1234_567891_toy.py": "def add(a, b): return a + b\n",
            "gregsmith_3456_567892_toy-1.py": "def double(x): pass\n",  # uploaded again: Canvas's "-1"
        },
        modules=[],
        exercise_modules=["toy"],
    )
    assert submitted(course_dir) == {
        "canvas-3456/a1/a1.ipynb": H.NOTEBOOK % "release",
        "canvas-3456/a1/toy.py": "def double(x): pass\n",
        "canvas-1234/a1/a1.ipynb": H.NOTEBOOK % "frank",
        "canvas-1234/a1/toy.py": "def add(a, b): return a + b\n",
    }
    assert got.problems == [] and got.stand_in == ["canvas-3456"]


def test_times_come_from_what_the_lms_writes_in_the_course_time_zone_never_from_the_zip_entries(tmp_path):
    """Canvas and Moodle date every zip entry when they make the zip: no timestamp.txt from them.
    Blackboard's attempt time and Brightspace's date are read in calendar.time_zone, with that zone's
    offset on that date (Paris: +1 h in winter, +2 h in summer); nbgrader's timestamp.txt is in UTC."""
    entries = {
        "millerfrank_1234_567890_a1.ipynb": (H.NOTEBOOK % "frank", (2026, 12, 1, 23, 30, 0)),
        "Problem Set_fmiller_attempt_2026-12-01-23-30-00_a1.ipynb": H.NOTEBOOK % "f",
        "Problem Set_jsmith_attempt_2026-07-01-23-30-00_a1.ipynb": H.NOTEBOOK % "j",
        # 02:30 on the last Sunday of March does not exist in Paris: read with the offset before it
        "Problem Set_aleroy_attempt_2026-03-29-02-30-00_a1.ipynb": H.NOTEBOOK % "a",
    }
    (tmp_path / "canvas").mkdir()
    course_dir, got = lms_collect(tmp_path / "canvas", {k: v for k, v in entries.items() if "attempt" not in k})
    assert "canvas-1234/a1/timestamp.txt" not in submitted(course_dir, timestamps=True) and got.times == {}
    for zone, expected in (
        ("Europe/Paris", ("2026-12-01 22:30:00", "2026-07-01 21:30:00", "2026-03-29 01:30:00")),
        (None, ("2026-12-01 23:30:00", "2026-07-01 23:30:00", "2026-03-29 02:30:00")),
    ):
        (tmp_path / str(zone).replace("/", "-")).mkdir()
        blackboard = {k: v for k, v in entries.items() if "attempt" in k}
        course_dir, got = lms_collect(
            tmp_path / str(zone).replace("/", "-"), blackboard, time_zone=zone, lms="blackboard"
        )
        files = submitted(course_dir, timestamps=True)
        assert [files[f"{s}/a1/timestamp.txt"] for s in ("fmiller", "jsmith", "aleroy")] == [
            f"{t} UTC\n" for t in expected
        ]


def test_a_roster_files_each_lms_id_under_its_student_and_names_those_it_lacks(tmp_path):
    roster = Roster(
        [Person("jsmith1", "John", "Smith", lms_id="2001"), Person("zmuller", "Zoë", "Müller", lms_id="1005")]
    )
    course_dir, got = lms_collect(
        tmp_path,
        {
            "smithjohn_2001_910001_a1.ipynb": H.NOTEBOOK % "john 2001",
            "smithjohn_2002_910002_a1.ipynb": H.NOTEBOOK % "john 2002",
            "m\u00fcllerzo\u00eb_1005_900004_a1.ipynb": H.NOTEBOOK % "zoe",
        },
        roster=roster,
    )
    assert submitted(course_dir) == {
        "jsmith1/a1/a1.ipynb": H.NOTEBOOK % "john 2001",
        "canvas-2002/a1/a1.ipynb": H.NOTEBOOK % "john 2002",  # not in the roster: the LMS's rule, and a note
        "zmuller/a1/a1.ipynb": H.NOTEBOOK % "zoe",
    }
    assert any("no line of the roster has lms_id 2002; collected as canvas-2002" in n for n in got.notes), got.notes
    assert got.people["zmuller"].display_name == "m\u00fcllerzo\u00eb" and got.complete
