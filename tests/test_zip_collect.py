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

from grader.autograde.zipcollect import MAX_ENTRY_BYTES, collect_zip
from grader.errors import GraderError
from tests import hostile_archives as H


def collect(tmp_path: Path, archive: Path, **kwargs):
    course_dir = tmp_path / "course"
    course_dir.mkdir(exist_ok=True)
    kwargs.setdefault("notebooks", ["a1.ipynb"])
    return course_dir, collect_zip(course_dir, "a1", archive, **kwargs)


def submitted(course_dir: Path) -> dict[str, str]:
    """'student/file' -> text of everything under submitted/."""
    root = course_dir / "submitted"
    return {p.relative_to(root).as_posix(): p.read_text() for p in sorted(root.rglob("*")) if p.is_file()}


def test_the_documented_shapes_are_collected(tmp_path):
    archive = H.archive(tmp_path / "download.zip", {
        "alice_a1 (1).ipynb": H.NOTEBOOK % "alice",          # <student>_<anything>.ipynb, renamed by the LMS
        "bob.ipynb": H.NOTEBOOK % "bob",                      # <student>.ipynb
        "carol/a1.ipynb": H.NOTEBOOK % "carol",               # <student>/<file>
        "carol/gae.py": "def gae_advantages(): pass\n",       # a lab module
        "download/dave/a1.ipynb": H.NOTEBOOK % "dave",        # inside a folder named like the archive
        "__MACOSX/._alice_a1.ipynb": "junk", ".DS_Store": "junk",
    })
    course_dir, got = collect(tmp_path, archive, modules=["gae.py"])
    assert submitted(course_dir) == {
        "alice/a1/a1.ipynb": H.NOTEBOOK % "alice", "bob/a1/a1.ipynb": H.NOTEBOOK % "bob",
        "carol/a1/a1.ipynb": H.NOTEBOOK % "carol", "carol/a1/gae.py": "def gae_advantages(): pass\n",
        "dave/a1/a1.ipynb": H.NOTEBOOK % "dave"}
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
    archive = H.archive(tmp_path / "d.zip", {"alice/a1.ipynb": H.NOTEBOOK % "alice",
                                             "mallory/alice/a1.ipynb": H.NOTEBOOK % "mallory"})
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
    archive = H.archive(tmp_path / "d.zip", {"alice_a1.ipynb": ("old", (2024, 1, 1, 0, 0, 0)),
                                             "alice_a1 (2).ipynb": ("new", (2024, 1, 2, 0, 0, 0)),
                                             "bob_a1.ipynb": H.NOTEBOOK % "bob"})
    course_dir, got = collect(tmp_path, archive)
    assert submitted(course_dir) == {"alice/a1/a1.ipynb": "new", "bob/a1/a1.ipynb": H.NOTEBOOK % "bob"}
    assert len(got.problems) == 1 and "newer copy" in got.problems[0]


def test_names_that_give_no_usable_student_id_are_refused(tmp_path):
    archive = H.archive(tmp_path / "d.zip", {"alice_a1.ipynb": H.NOTEBOOK % "alice",
                                             "[bold]x/a1.ipynb": "1", "_a1.ipynb": "2", "caf\u00e9/a1.ipynb": "3",
                                             "a1.pdf": "4"})
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
    collect_zip(course_dir, "a1", archive, ["a1.ipynb"])
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
    collect_zip(course_dir, "a1", H.archive(tmp_path / "d.zip", {"alice_a1.ipynb": "x"}), ["a1.ipynb"])
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
