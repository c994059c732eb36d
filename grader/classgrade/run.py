"""The submissions of a class, read by the collection part every verb shares (:mod:`grader.lms`).

A class is a folder or an LMS download (``--zip``). An LMS's download, zipped or unpacked, is read by
its shape (Canvas, Moodle, Blackboard, Brightspace: each student by the LMS's own id, the time the LMS
wrote, the latest submission); each student's files are written into ``OUT/collected/<class>/<student>/``
under their own names (``ps4b-1.ipynb`` stays a notebook, Canvas's ``gae-1.py`` becomes ``gae.py``).
A folder of the instructor's is graded where it is: each top-level folder, ``.py`` file or notebook
``<student>[_<assignment>].ipynb`` is one student's (several notebooks of one student are one
submission, copied together). Every entry is collected, passed over, or reported with why.
"""

from __future__ import annotations

import shutil
from dataclasses import dataclass, field
from pathlib import Path

from grader.errors import GraderError
from grader.lms import AssignmentFiles, Budget, Download, Roster, Submission, place, read_download, write_files
from grader.lms.place import fresh_folder
from grader.notebooks.extract import MAX_NOTEBOOK_BYTES
from grader.untrusted import read_regular, shown

COLLECTED = "collected"


@dataclass
class ClassSubmissions:
    """A class as ``grade-class`` grades it.

    Attributes
    ----------
    students
        ``{student: path}``: a folder or file graded where it is, or the folder its files were written to.
    skipped
        Entries that are nobody's submission, or whose student cannot be graded (entry -> why): they
        count as not graded.
    left_out
        Every entry not collected, with why and the fix (printed before grading; the exit status says so).
    submitted, people
        Each student's submission time as the LMS wrote it (UTC), and who they are (:class:`ClassRoster`).
    root
        The folder the submissions are named from (the class folder, or where a download was written).
    """

    students: dict[str, Path] = field(default_factory=dict)
    skipped: dict[str, str] = field(default_factory=dict)
    left_out: list[str] = field(default_factory=list)
    by_rule: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    submitted: dict[str, str] = field(default_factory=dict)
    people: dict[str, dict] = field(default_factory=dict)
    lms: str = "generic"
    detected: bool = False
    passed_over: int = 0
    root: Path | None = None


def collect_class(
    source: Path,
    out: Path,
    *,
    course,
    lms: str = "auto",
    name_regexp: str | None = None,
    roster: Roster | None = None,
) -> ClassSubmissions:
    """The class at ``source`` (a folder, or a ``.zip`` download) as submissions to grade, in phases: read
    (:func:`grader.lms.read_download`), then each student graded where it is or written out.

    Raises
    ------
    GraderError
        When ``source`` cannot be read at all.
    """
    source = Path(source)
    collected = ClassSubmissions()
    assignments = [a.id for a in course.assignments]
    with read_download(
        source,
        lms,
        name_regexp=name_regexp,
        time_zone=course.time_zone,
        roster=roster,
        assignments=assignments,
        class_folder=True,
    ) as download:
        _account(download, collected)
        written = out / COLLECTED / (source.stem if source.is_file() else source.name)
        collected.root = source.resolve() if source.is_dir() and download.lms == "generic" else written
        wanted = AssignmentFiles(modules=tuple(f"{m}.py" for m in course.modules), any_notebook=True)
        budget = Budget()
        if written.exists() and not any(s.origins for s in download.submissions):
            fresh_folder(written)  # last run's copies: a student left out now is not graded from them
        for sub in download.submissions:
            path = _where(source, sub) if sub.origins else _write(download, sub, wanted, written, budget, collected)
            if path is not None:
                collected.students[sub.student] = path
                _who(collected, sub)
    return collected


def _account(download: Download, collected: ClassSubmissions) -> None:
    collected.lms, collected.detected = download.lms, download.detected
    collected.notes += download.notes
    collected.passed_over = len(download.passed_over)
    graded = {o for sub in download.submissions for o in sub.origins}
    for left in download.left_out:
        if left.entry.split("/", 1)[0] in graded:  # inside a folder graded as a whole: the grading says it
            continue
        (collected.by_rule if left.by_rule else collected.left_out).append(str(left))
        if not left.by_rule and download.lms == "generic":
            collected.skipped[shown(left.entry.split("/", 1)[0])] = left.reason


def _where(source: Path, sub: Submission) -> Path | tuple[Path, ...]:
    """A student's own folder or file, or their notebooks (several files: one submission)."""
    paths = tuple(source.resolve() / origin for origin in sub.origins)
    return paths[0] if len(paths) == 1 else paths


def _write(download, sub: Submission, wanted, written: Path, budget, collected: ClassSubmissions) -> Path | None:
    """The files of ``sub`` a grader takes (notebooks, the course's modules), written into ``written/<student>``."""
    chosen, left = place(sub, wanted)
    folder = fresh_folder(written / sub.student)
    names, unwritten = write_files(download, chosen, folder, budget)
    for item in left + unwritten:
        (collected.by_rule if item.by_rule else collected.left_out).append(str(item))
    collected.notes += [f"{sub.who}: {note}" for note in sub.notes]
    if not names:
        shutil.rmtree(folder)
        collected.skipped[sub.student] = f"{sub.who}: no notebook or module of the course in the submission"
        return None
    return folder


def _who(collected: ClassSubmissions, sub: Submission) -> None:
    if sub.submitted_at is not None:
        collected.submitted[sub.student] = sub.submitted_at.isoformat(" ")
    if sub.lms != "generic":
        collected.people[sub.student] = {
            "lms": sub.lms,
            "lms_id": sub.lms_id,
            "name": sub.display_name,
            "late": sub.late,
        }


def discover_submissions(
    directory: Path, skipped: dict[str, str] | None = None, assignments=None
) -> dict[str, Path | tuple[Path, ...]]:
    """``{student: path}`` of a class folder of the instructor's: each top-level folder, ``.py`` file or
    notebook is one student's (one student's several notebooks: one submission, a tuple of paths).

    An entry that cannot be graded (a symbolic link, which is never followed; two entries for one
    student) raises, or, when ``skipped`` is given, is recorded there (printable name -> reason) and left
    out. A name that is not a usable id as it is becomes one (:func:`grader.lms.name_id`).
    """
    directory = Path(directory)
    if not directory.is_dir():
        raise GraderError(f"not a directory of submissions: {directory}")
    found: dict[str, Path | tuple[Path, ...]] = {}
    with read_download(directory, "generic", assignments=assignments or (), class_folder=True) as download:
        for left in download.left_out:
            if skipped is None:
                raise GraderError(str(left))
            skipped[shown(left.entry.split("/", 1)[0])] = left.reason  # the student's entry, as the class names it
        for sub in download.submissions:
            found[sub.student] = _where(directory, sub)
    if not found and not skipped:
        raise GraderError(f"{directory} holds no submissions (one subdirectory or .py file per student)")
    return dict(sorted(found.items()))


def copy_notebooks(paths: tuple[Path, ...], folder: Path) -> Path:
    """One student's several notebook files copied into ``folder`` (emptied): one submission."""
    fresh_folder(folder)
    for nb in paths:
        (folder / nb.name).write_bytes(read_regular(nb, MAX_NOTEBOOK_BYTES))
    return folder
