"""`grader autograde --zip`: an LMS download is read entry by entry, and a bad entry costs that entry only.

The archives are built by :mod:`tests.hostile_archives`; a whole `--zip` run on the toy
course is in ``test_autograde_hostile_e2e.py``.
"""

from __future__ import annotations

import os
import stat
import zipfile
from pathlib import Path

import pytest

from grader.autograde.zipcollect import MAX_ENTRY_BYTES, LmsDownload, collect_zip
from grader.errors import GraderError
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
    assert any(p.startswith("mallory_upload.zip: not collected: an archive inside the archive") for p in got.problems)


def test_a_folder_inside_a_students_folder_never_names_another_student(tmp_path):
    archive = H.archive(
        tmp_path / "d.zip", {"alice/a1.ipynb": H.NOTEBOOK % "alice", "mallory/alice/a1.ipynb": H.NOTEBOOK % "mallory"}
    )
    course_dir, got = collect(tmp_path, archive)
    assert submitted(course_dir) == {"alice/a1/a1.ipynb": H.NOTEBOOK % "alice"}
    assert "mallory/alice/a1.ipynb: not collected" in got.problems[0]


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
    assert len(got.problems) == 1 and "newer copy" in got.problems[0]


def test_names_that_give_no_usable_student_id_are_refused(tmp_path):
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
    assert list(submitted(course_dir)) == ["alice/a1/a1.ipynb"]
    assert len(got.problems) == 4, got.problems


def test_sizes_are_bounded_per_entry_by_ratio_and_by_the_bytes_actually_read(tmp_path):
    archive = H.oversized(tmp_path / "d.zip", MAX_ENTRY_BYTES)
    course_dir, got = collect(tmp_path, archive)
    assert list(submitted(course_dir)) == ["alice/a1/a1.ipynb"]
    text = "\n".join(got.problems)
    assert "more than the 64 MB" in text and "to 1 (a zip bomb?)" in text, text
    (tmp_path / "lying").mkdir()
    course_dir, got = collect(tmp_path / "lying", H.lying_size(tmp_path / "lying.zip"))
    assert list(submitted(course_dir)) == ["alice/a1/a1.ipynb"]
    assert "mallory_a1.ipynb: not collected: unreadable" in got.problems[0], got.problems


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


# -- issue 19, item 3: each LMS's own download, exactly as it names and nests its files -------------------
def lms_collect(tmp_path: Path, entries: dict, **kwargs):
    archive = H.archive(tmp_path / kwargs.pop("archive_name", "submissions.zip"), entries)
    kwargs.setdefault("modules", ["score_functions.py"])
    return collect(tmp_path, archive, **kwargs)


def test_a_canvas_download_is_detected_with_its_late_marks_and_resubmissions(tmp_path):
    course_dir, got = lms_collect(
        tmp_path,
        {
            # Submissions > Download Submissions: <login>_[LATE_]<user id>_<submission id>_<file as uploaded>
            "millerfrank_1234_567890_a1.ipynb": (
                H.NOTEBOOK % "frank",
                (2026, 12, 1, 22, 30, 4),
            ),  # zip times: 2 s steps
            "smithjane_LATE_2345_567891_a1-1.ipynb": (H.NOTEBOOK % "jane", (2026, 12, 3, 9, 15, 0)),
            "gregsmith_3456_567892_score_functions.py": ("def f(): pass\n", (2026, 12, 1, 8, 0, 0)),
        },
    )
    assert (got.lms, got.detected, got.problems) == ("canvas", True, [])
    assert submitted(course_dir, timestamps=True) == {
        "millerfrank/a1/a1.ipynb": H.NOTEBOOK % "frank",
        "millerfrank/a1/timestamp.txt": "2026-12-01 22:30:04 UTC\n",
        "smithjane/a1/a1.ipynb": H.NOTEBOOK % "jane",
        "smithjane/a1/timestamp.txt": "2026-12-03 09:15:00 UTC\n",
        "gregsmith/a1/score_functions.py": "def f(): pass\n",
        "gregsmith/a1/timestamp.txt": "2026-12-01 08:00:00 UTC\n",
    }
    assert got.late == ["smithjane"]


def test_a_moodle_download_in_folders_or_flat_gives_ids_from_names(tmp_path):
    course_dir, got = lms_collect(
        tmp_path,
        {
            # "Download all submissions" with "Download submissions in folders" (Moodle's default) ...
            "Frank Miller_1234_assignsubmission_file_/a1.ipynb": (H.NOTEBOOK % "frank", (2026, 12, 1, 23, 30, 0)),
            "Frank Miller_1234_assignsubmission_onlinetext_/onlinetext.html": "<p>see the notebook</p>",
            "Zoë Ångström_1240_assignsubmission_file_/a1 (final).ipynb": H.NOTEBOOK % "zoe",
            # ... and without folders
            "Jane Smith_2345_assignsubmission_file_a1.ipynb": H.NOTEBOOK % "jane",
        },
        time_zone="Europe/Paris",
    )
    assert (got.lms, got.problems) == ("moodle", [])
    files = submitted(course_dir, timestamps=True)
    assert files["frank.miller/a1/a1.ipynb"] == H.NOTEBOOK % "frank"
    assert files["frank.miller/a1/timestamp.txt"] == "2026-12-01 22:30:00 UTC\n"  # 23:30 in Paris
    assert files["zoe.angstrom/a1/a1.ipynb"] == H.NOTEBOOK % "zoe"
    assert files["jane.smith/a1/a1.ipynb"] == H.NOTEBOOK % "jane"
    assert sorted(got.students) == ["frank.miller", "jane.smith", "zoe.angstrom"]


def test_two_moodle_students_with_one_name_are_not_merged(tmp_path):
    course_dir, got = lms_collect(
        tmp_path,
        {
            "Jo Lee_11_assignsubmission_file_/a1.ipynb": H.NOTEBOOK % "one",
            "Jo Lee_12_assignsubmission_file_/a1.ipynb": H.NOTEBOOK % "two",
        },
    )
    assert submitted(course_dir) == {}
    assert "2 students' names give the id jo.lee (LMS ids 11, 12)" in got.problems[0]


def test_a_blackboard_download_takes_the_attempt_time_and_the_newest_attempt(tmp_path):
    course_dir, got = lms_collect(
        tmp_path,
        {
            # Grade Centre > Assignment File Download: <assignment>_<username>_attempt_<time>_<file>, and a receipt
            "Problem Set 4a_fmiller_attempt_2026-12-01-22-30-00_a1.ipynb": H.NOTEBOOK % "first",
            "Problem Set 4a_fmiller_attempt_2026-12-01-22-30-00.txt": "Name: Frank Miller (fmiller)\n",
            "Problem Set 4a_fmiller_attempt_2026-12-02-08-00-00_a1.ipynb": H.NOTEBOOK % "second",
            "Problem Set 4a_fmiller_attempt_2026-12-02-08-00-00.txt": "Name: Frank Miller (fmiller)\n",
        },
    )
    assert got.lms == "blackboard"
    assert submitted(course_dir, timestamps=True) == {
        "fmiller/a1/a1.ipynb": H.NOTEBOOK % "second",
        "fmiller/a1/timestamp.txt": "2026-12-02 08:00:00 UTC\n",
    }
    assert len(got.problems) == 1 and "has a newer copy" in got.problems[0]


def test_a_brightspace_download_takes_the_time_from_the_name(tmp_path):
    course_dir, got = lms_collect(
        tmp_path,
        {
            # Assignments > View Submissions > Download: <id>-<id> - <name> - <date> - <file>, and index.html
            "123456-7890 - Frank Miller - Dec 1, 2026 1030 PM - a1.ipynb": H.NOTEBOOK % "frank",
            "123457-7891 - Jane Smith - Dec 2, 2026 905 AM - a1.ipynb": H.NOTEBOOK % "jane",
            "index.html": "<html>the list of submissions</html>",
        },
    )
    assert (got.lms, got.problems) == ("brightspace", [])
    files = submitted(course_dir, timestamps=True)
    assert files["frank.miller/a1/timestamp.txt"] == "2026-12-01 22:30:00 UTC\n"
    assert files["jane.smith/a1/timestamp.txt"] == "2026-12-02 09:05:00 UTC\n"


def test_an_lms_named_explicitly_says_which_names_do_not_fit(tmp_path):
    course_dir, got = lms_collect(
        tmp_path,
        {"millerfrank_1234_567890_a1.ipynb": H.NOTEBOOK % "frank", "frank.ipynb": H.NOTEBOOK % "x"},
        lms="canvas",
    )
    assert list(submitted(course_dir)) == ["millerfrank/a1/a1.ipynb"]
    assert got.problems == [
        "frank.ipynb: not collected: its name is not shaped like a canvas download's "
        "(e.g. millerfrank_LATE_1234_567890_ps4a.ipynb)"
    ]
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
            "millerfrank_1234_567890_toy.py": "def add(a, b): return a + b\n",
            "gregsmith_3456_567892_toy.py": "def double(x): pass\n",
        },
        modules=[],
        exercise_modules=["toy"],
    )
    assert submitted(course_dir) == {
        "gregsmith/a1/a1.ipynb": H.NOTEBOOK % "release",
        "gregsmith/a1/toy.py": "def double(x): pass\n",
        "millerfrank/a1/a1.ipynb": H.NOTEBOOK % "frank",
        "millerfrank/a1/toy.py": "def add(a, b): return a + b\n",
    }
    assert got.problems == [] and got.stand_in == ["gregsmith"]


def test_archive_member_times_are_read_in_the_course_time_zone_with_its_summer_time(tmp_path):
    """A zip entry's time has no zone (DOS date and time of the machine that wrote the archive):
    the collector reads it in calendar.time_zone, with that zone's offset on that date (Paris: +1 h
    in winter, +2 h in summer), and writes UTC into timestamp.txt as nbgrader does; without a
    course zone the time is UTC."""
    entries = {
        "millerfrank_1234_567890_a1.ipynb": (H.NOTEBOOK % "frank", (2026, 12, 1, 23, 30, 0)),
        "smithjane_2345_567891_a1.ipynb": (H.NOTEBOOK % "jane", (2026, 7, 1, 23, 30, 0)),
        # 02:30 on the last Sunday of March does not exist in Paris: read with the offset before it
        "leroyanne_3456_567892_a1.ipynb": (H.NOTEBOOK % "anne", (2026, 3, 29, 2, 30, 0)),
    }
    (tmp_path / "paris").mkdir()
    (tmp_path / "utc").mkdir()
    course_dir, got = lms_collect(tmp_path / "paris", entries, time_zone="Europe/Paris")
    files = submitted(course_dir, timestamps=True)
    assert files["millerfrank/a1/timestamp.txt"] == "2026-12-01 22:30:00 UTC\n"
    assert files["smithjane/a1/timestamp.txt"] == "2026-07-01 21:30:00 UTC\n"
    assert files["leroyanne/a1/timestamp.txt"] == "2026-03-29 01:30:00 UTC\n"
    course_dir, got = lms_collect(tmp_path / "utc", entries)
    assert submitted(course_dir, timestamps=True)["smithjane/a1/timestamp.txt"] == "2026-07-01 23:30:00 UTC\n"
