"""The results directory of a class: one record per student, a manifest, a CSV.

Layout::

    RESULTS_DIR/
      class.json              the run: course, class, students, timing, failures
      results/<student>.json  one :class:`~grader.engine.record.GradeRecord` (written atomically)
      summary.csv             one row per student (rewritten at the end of every run)
      logs/worker-<n>.log     what local grading processes printed

Every file is written to a temporary name, flushed to disk and renamed, so a crash
or Ctrl-C leaves either the old file or the new one, never half of one. Nothing in
the directory names an absolute path: it can be moved or copied with its course.
"""

from __future__ import annotations

import csv
import fcntl
import io
import json
import os
import re
from pathlib import Path

from grader.calendar import POINTS_DECIMALS
from grader.core.course import Course
from grader.display import spreadsheet_cell, visible
from grader.engine.record import GradeRecord
from grader.errors import GraderError

MANIFEST = "class.json"
SUMMARY = "summary.csv"
RESULTS = "results"
LOGS = "logs"
# At most 100 characters: a result file (and its temporary name) must fit a file name (255 bytes).
SAFE_ID = re.compile(r"\A[A-Za-z0-9][A-Za-z0-9._@+-]{0,99}\Z")  # \Z: "$" also matches before a final newline


def atomic_write(path: Path, text: str) -> None:
    """Write ``text`` to ``path`` so that readers only ever see a whole file."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f".{path.name}.tmp-{os.getpid()}")
    with open(tmp, "w", encoding="utf-8", newline="") as out:
        out.write(text)
        out.flush()
        os.fsync(out.fileno())
    os.replace(tmp, path)
    try:
        fd = os.open(path.parent, os.O_RDONLY)
        try:
            os.fsync(fd)
        finally:
            os.close(fd)
    except OSError:  # pragma: no cover - some filesystems cannot fsync a directory
        pass


class ResultStore:
    """Read and write the results directory of one class."""

    def __init__(self, root: Path):
        self.root = Path(root)

    @property
    def results_dir(self) -> Path:
        return self.root / RESULTS

    @property
    def logs_dir(self) -> Path:
        return self.root / LOGS

    def result_path(self, student: str) -> Path:
        if not SAFE_ID.match(student):
            raise GraderError(f"not a usable student id: {student!r}")
        return self.results_dir / f"{student}.json"

    def load(self, student: str) -> GradeRecord | None:
        """The stored record of ``student``, or None if absent, unreadable or of another format."""
        try:
            data = json.loads(self.result_path(student).read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return None
        return GradeRecord.from_json(data)

    def save(self, record: GradeRecord) -> Path:
        path = self.result_path(record.student)
        # Compact: json writes indented text in Python, seven times slower (a class saves each record twice).
        atomic_write(path, json.dumps(record.to_json(), separators=(",", ":")) + "\n")
        return path

    def discard(self, student: str) -> None:
        """Remove the stored record of ``student`` (one that no longer grades what was handed in)."""
        try:
            self.result_path(student).unlink()
        except FileNotFoundError:
            pass

    def all_records(self, students: list[str] | None = None) -> list[GradeRecord]:
        """Stored records (of ``students`` when given, else every file), sorted by student."""
        if students is None:
            students = sorted(p.stem for p in self.results_dir.glob("*.json")) if self.results_dir.is_dir() else []
        records = [self.load(s) for s in students if SAFE_ID.match(s)]
        return sorted((r for r in records if r is not None), key=lambda r: r.student)

    def lock(self):
        """An exclusive lock on the directory for one run (released when the returned file closes).

        Raises
        ------
        GraderError
            When another run holds it.
        """
        self.root.mkdir(parents=True, exist_ok=True)
        handle = open(self.root / ".lock", "w")
        try:
            fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            handle.close()
            raise GraderError(
                f"another grading run is writing to {self.root}; wait for it, or write the results somewhere else"
            ) from None
        return handle

    # -- the manifest ---------------------------------------------------------------
    def manifest(self) -> dict | None:
        try:
            data = json.loads((self.root / MANIFEST).read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return None
        return data if isinstance(data, dict) else None

    def save_manifest(self, data: dict) -> None:
        atomic_write(self.root / MANIFEST, json.dumps(data, indent=1) + "\n")

    # -- the summary ------------------------------------------------------------------
    def write_summary(
        self,
        course: Course,
        records: list[GradeRecord],
        not_graded: dict[str, str] | None = None,
        penalties: dict[str, float] | None = None,
    ) -> Path:
        """summary.csv: one row per student with totals per assignment and per function.

        ``not_graded`` (student -> reason): students of the run without a record; their row
        has no score and says "not graded: reason" in the limits column. ``penalties`` (student ->
        points): each student's late penalty (calendar.late_policy and extensions); ``final`` is the
        total minus it. Points are written to the course's precision.
        """
        penalties = penalties or {}
        graded = {f for r in records for f in r.result.functions}  # a run of one assignment: its columns
        functions = [f for f in course.functions if f in graded] or list(course.functions)
        assignments = [a.id for a in course.assignments if any(e.function in functions for e in a.exercises)]
        buffer = io.StringIO()
        writer = csv.writer(buffer)
        writer.writerow(
            [
                "student",
                "total",
                "max",
                "percent",
                "late_penalty",
                "final",
                *assignments,
                *functions,
                "limits",
                "grading_seconds",
                "graded_at",
                "graded_by",
            ]
        )
        for r in records:
            by_function = r.result.functions
            writer.writerow(
                [
                    spreadsheet_cell(value)
                    for value in (
                        r.student,
                        _num(r.total),
                        _num(r.max),
                        f"{100 * r.total / r.max:.1f}" if r.max else "",
                        _num(penalties.get(r.student, 0.0)),
                        _num(max(0.0, r.total - penalties.get(r.student, 0.0))),
                        *[_num(r.assignments.get(a, {}).get("score", "")) for a in assignments],
                        *[_num(by_function[f].score) if f in by_function else "" for f in functions],
                        "; ".join(f"{x['function'] or 'submission'}: {x['kind']}" for x in r.limits),
                        f"{r.elapsed:.2f}",
                        r.graded_at,
                        r.grader,
                    )
                ]
            )
        graded = {r.student for r in records}
        for student, reason in sorted((not_graded or {}).items()):
            if student not in graded and SAFE_ID.match(student):
                reason = visible(reason, 300, one_line=True)
                reason = reason if reason.startswith("not graded") else f"not graded: {reason}"
                writer.writerow(
                    [student, "", "", "", "", "", *[""] * (len(assignments) + len(functions)), reason, "", "", ""]
                )
        path = self.root / SUMMARY
        atomic_write(path, buffer.getvalue())
        return path


def _num(value) -> str:
    """A number to the course's precision, without trailing zeros (``1.2``, ``10.68``, ``12``)."""
    if isinstance(value, (int, float)):
        return f"{round(value, POINTS_DECIMALS):g}"
    return str(value)
