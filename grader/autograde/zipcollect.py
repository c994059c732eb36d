"""``grader autograde --zip``: an LMS download into nbgrader's ``submitted/``, through :mod:`grader.lms`.

The download is read by the collection part every verb shares (:func:`grader.lms.read_download`:
which LMS wrote it, whose each file is by the LMS's own id, the latest submission, every entry
accounted for). Here, in phases, :func:`collect_zip` then takes each student's files the assignment
wants (:class:`grader.lms.AssignmentFiles`: the notebook under its release name, the student modules),
writes them into ``downloaded/<assignment>/extracted/<student>/`` (emptied first), adds nbgrader's
``timestamp.txt`` when the LMS wrote a submission time (Blackboard's attempt, Brightspace's date;
Canvas and Moodle write none: their zip entries are dated when the zip is made), lets the release
notebook stand in for a student who handed in modules only, and makes each folder the student's
``submitted/<student>/<assignment>/`` (files 0644, folders 0755, whatever the archive says). Nothing
is unpacked by another tool: nested archives, links, absolute names and oversized entries cost their
entry only, with a message.
"""

from __future__ import annotations

import shutil
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path

from grader.display import markup
from grader.lms import AssignmentFiles, Budget, Download, Roster, Submission, place, read_download, write_files
from grader.lms.place import MAX_ENTRY_BYTES, fresh_folder, replace_folder
from grader.lms.shapes import LMS_SHAPES

__all__ = ["MAX_ENTRY_BYTES", "LMS_SHAPES", "Collected", "LmsDownload", "collect_zip"]

MAX_PROBLEMS = 200  # messages printed; the rest are counted


@dataclass(frozen=True)
class LmsDownload:
    """An LMS download to collect (``--zip``) and how its file names give the students.

    ``lms`` names the download's shape (one of :data:`grader.options.LMS_NAMES`; ``auto`` detects it,
    ``generic`` is ``<student>_<anything>`` read with ``name_regexp``, which also implies ``generic``);
    ``roster``: the roster CSV naming its students (``--roster``; None: the gradebook's students).
    """

    archive: Path
    lms: str = "auto"
    name_regexp: str | None = None
    roster: Path | None = None


@dataclass
class Collected:
    """What :func:`collect_zip` did: files written per student, and a message per entry left out."""

    students: dict[str, list[str]] = field(default_factory=dict)
    problems: list[str] = field(default_factory=list)  # entries left out for a problem, with the fix
    by_rule: list[str] = field(default_factory=list)  # earlier attempts and copies, left out by rule
    notes: list[str] = field(default_factory=list)  # what the instructor should know (names shared, roster)
    lms: str = "generic"  # the shape the names were read with
    detected: bool = False  # chosen from the names (no --lms)
    late: list[str] = field(default_factory=list)  # students the LMS marked late
    times: dict[str, datetime] = field(default_factory=dict)  # student -> submission time (UTC, naive)
    # students who handed in modules and no notebook: the release notebook stands in for theirs
    stand_in: list[str] = field(default_factory=list)
    people: dict[str, Submission] = field(default_factory=dict)  # student -> who the LMS says they are
    passed_over: int = 0  # the LMS's own files and the system's, passed over

    @property
    def files(self) -> int:
        return sum(len(files) for files in self.students.values())

    @property
    def complete(self) -> bool:
        """Was every entry collected, passed over or by_rule (nothing left out for a problem)?"""
        return not self.problems


def collect_zip(
    course_dir: Path,
    assignment: str,
    download: LmsDownload,
    notebooks: list[str],
    modules: list[str] = (),
    time_zone: str | None = None,
    exercise_modules: list[str] = (),
    roster: Roster | None = None,
) -> Collected:
    """Collect ``download`` into ``<course_dir>/submitted/<student>/<assignment>/``.

    ``notebooks`` are the assignment's notebook names, ``modules`` its student modules (both as
    ``grader build`` recorded them), ``exercise_modules`` (names without ``.py``) the modules whose
    exercises the notebook holds. Times without a zone are in ``time_zone`` (IANA name; UTC by
    default); ``roster`` names the students (else each LMS's rule, :mod:`grader.lms.identity`).

    Raises
    ------
    GraderError
        When the archive is not a readable zip file or ``name_regexp`` is unusable; anything wrong
        with one entry is a message in :attr:`Collected.problems` instead.
    """
    archive = Path(download.archive)
    wanted = AssignmentFiles(tuple(notebooks), tuple(modules), tuple(exercise_modules))
    with read_download(
        archive, download.lms, name_regexp=download.name_regexp, time_zone=time_zone, roster=roster
    ) as read:
        collected = _summary(read)
        staging = fresh_folder(Path(course_dir) / "downloaded" / assignment / "extracted")
        budget = Budget()
        for sub in read.submissions:
            _stage(read, sub, wanted, staging, budget, collected)
    release = Path(course_dir) / "release" / assignment / notebooks[0]
    for student in sorted(collected.students):
        _finish(collected, student, staging / student, release, notebooks)
        replace_folder(staging / student, Path(course_dir) / "submitted" / student / assignment)
    if len(collected.problems) > MAX_PROBLEMS:
        more = len(collected.problems) - MAX_PROBLEMS
        collected.problems[MAX_PROBLEMS:] = [f"... and {more} more entries not collected"]
    return collected


def _summary(read: Download) -> Collected:
    """What the download itself says: how it was read, what it left out, what to know."""
    collected = Collected(lms=read.lms, detected=read.detected, notes=list(read.notes))
    collected.passed_over = len(read.passed_over)
    for left in read.left_out:
        (collected.by_rule if left.by_rule else collected.problems).append(f"{left}")
    return collected


def _stage(read: Download, sub: Submission, wanted: AssignmentFiles, staging: Path, budget, collected) -> None:
    """Write the files of ``sub`` the assignment takes into ``staging/<student>/``."""
    chosen, left = place(sub, wanted)
    written, unwritten = write_files(read, chosen, staging / sub.student, budget)
    for item in left + unwritten:
        (collected.by_rule if item.by_rule else collected.problems).append(f"{item}")
    collected.notes += [f"{sub.who}: {note}" for note in sub.notes]
    if not written:
        return
    collected.students[sub.student] = written
    collected.people[sub.student] = sub
    if sub.late:
        collected.late.append(sub.student)
    if sub.submitted_at is not None:
        collected.times[sub.student] = sub.submitted_at


def _finish(collected: Collected, student: str, folder: Path, release: Path, notebooks: list[str]) -> None:
    """The release notebook for a student with modules only, and nbgrader's ``timestamp.txt``."""
    if not any(f in notebooks for f in collected.students[student]) and release.is_file():
        # Only .py modules: nbgrader records a notebook, so the release's (every cell an untouched
        # stub) stands in, and the modules are graded (an implemented function wins over a stub).
        shutil.copyfile(release, folder / notebooks[0])
        collected.stand_in.append(student)
    if student in collected.times:  # as nbgrader writes it: UTC, read back by nbgrader.utils.parse_utc
        (folder / "timestamp.txt").write_text(collected.times[student].isoformat(" ") + " UTC\n", encoding="utf-8")


def print_collection(console, collected: Collected, download: LmsDownload) -> None:
    """Say at once, before anything is graded, what was collected, what was left out and how to collect it."""
    if collected.lms != "generic":
        how = f"a {collected.lms} download" + (" (recognised from its names)" if collected.detected else "")
    else:
        how = "names read as " + (
            f"--name-regexp {download.name_regexp}" if download.name_regexp else "<student>_<file>"
        )
    archive = Path(download.archive).name
    console.print(
        f"collected {collected.files} file(s) of {len(collected.students)} student(s) from "
        f"{markup(archive)} into submitted/ ({markup(how)}; {collected.passed_over} of the LMS's and the "
        "system's own entries passed over)"
    )
    people = [f"{s} = {p.who}" for s, p in sorted(collected.people.items()) if p.lms != "generic"]
    if people:
        console.print(f"students (id = name as the LMS writes it): {markup('; '.join(people))}")
    if collected.late:
        console.print(f"marked late by the LMS: {markup(', '.join(collected.late))}")
    if collected.stand_in:
        console.print(
            f"no notebook, graded from their .py modules (the release notebook stands in for "
            f"nbgrader): {markup(', '.join(collected.stand_in))}"
        )
    for note in collected.notes:
        console.print(f"[cyan]note:[/cyan] {markup(note)}")
    for line in collected.by_rule:
        console.print(f"left out: {markup(archive)}: {markup(line)}")
    for problem in collected.problems:
        console.print(f"[yellow]not collected:[/yellow] {markup(archive)}: {markup(problem)}")
    if collected.problems:
        console.print(
            f"[yellow]{len(collected.problems)} entr{'y' if len(collected.problems) == 1 else 'ies'} of "
            f"{markup(archive)} not collected[/yellow] (above, each with the fix); the others are graded"
        )
