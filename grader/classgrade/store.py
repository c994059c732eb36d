"""The results directory of a class run: one JSON file per student, a manifest, a CSV.

Layout::

    RESULTS_DIR/
      class.json            the run: course, submissions directory, students, timing
      results/<student>.json  one graded submission (written atomically as it finishes)
      summary.csv           one row per student (rewritten at the end of every run)
      logs/worker-<n>.log   what the trusted grading processes printed

Every file is written to a temporary name, flushed to disk and renamed, so a
crash or Ctrl-C leaves either the old file or the new one, never half of one.
"""

from __future__ import annotations

import csv
import io
import json
import os
import re
from pathlib import Path

from grader.course import Course
from grader.errors import GraderError

FORMAT = 1
MANIFEST = "class.json"
SUMMARY = "summary.csv"
RESULTS = "results"
LOGS = "logs"
# At most 100 characters: a result file (and its temporary name) must fit a file name (255 bytes).
SAFE_ID = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._@+-]{0,99}$")


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

    def load(self, student: str) -> dict | None:
        """The stored record of ``student``, or None if absent or unreadable."""
        path = self.result_path(student)
        try:
            record = json.loads(path.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return None
        return record if isinstance(record, dict) and record.get("format") == FORMAT else None

    def is_current(self, student: str, submission_hash: str, course_hash: str) -> bool:
        record = self.load(student)
        return (record is not None and record.get("submission_hash") == submission_hash
                and record.get("course_hash") == course_hash)

    def save(self, record: dict) -> Path:
        path = self.result_path(record["student"])
        atomic_write(path, json.dumps(record, indent=1, sort_keys=False) + "\n")
        return path

    def all_records(self, students: list[str] | None = None) -> list[dict]:
        """Stored records (of ``students`` when given, else every file), sorted by student."""
        if students is None:
            students = sorted(p.stem for p in self.results_dir.glob("*.json")) if self.results_dir.is_dir() else []
        records = [self.load(s) for s in students]
        return sorted((r for r in records if r is not None), key=lambda r: r["student"])

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
    def write_summary(self, course: Course, records: list[dict]) -> Path:
        """summary.csv: one row per student with totals per assignment and per function."""
        functions = course.functions
        assignments = [a.id for a in course.assignments]
        buffer = io.StringIO()
        writer = csv.writer(buffer)
        writer.writerow(["student", "total", "max", "percent", *assignments, *functions, "limits",
                         "grading_seconds", "graded_at"])
        for r in records:
            result = r["result"]
            by_function = result.get("functions", {})
            by_assignment = r.get("assignments", {})
            total, most = result.get("total", 0.0), result.get("max", 0.0)
            writer.writerow([
                r["student"], _num(total), _num(most), f"{100 * total / most:.1f}" if most else "",
                *[_num(by_assignment.get(a, {}).get("score", "")) for a in assignments],
                *[_num(by_function.get(f, {}).get("score", "")) for f in functions],
                "; ".join(f"{x['function'] or 'submission'}: {x['kind']}" for x in r.get("limits", [])),
                f"{r.get('elapsed', 0.0):.2f}", r.get("graded_at", ""),
            ])
        path = self.root / SUMMARY
        atomic_write(path, buffer.getvalue())
        return path


def _num(value) -> str:
    if isinstance(value, (int, float)):
        return f"{value:g}"
    return str(value)
