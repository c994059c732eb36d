"""course.yaml's parts for the LMSs: per-student extensions (``calendar.extensions``) and the LMS's
gradebook columns (``lms.columns``, below).

A list in course.yaml, or a CSV file beside it (header ``student,assignment,due,excused``), one line per
student and assignment: a due date of their own (``2026-12-15 23:59``, in calendar.time_zone; a day alone
means 23:59:59) or their lateness excused (``excused: true``)::

    calendar:
      extensions:
        - {student: canvas-2001, assignment: ps4b, due: 2026-12-15 23:59}
        - {student: bob, assignment: ps4a, excused: true}
      # or: extensions: extensions.csv

``student`` is the grader's student id (the roster's, or the id collection gave: ``canvas-2001``). Every
route honours it: nbgrader's late plugin (:mod:`grader.autograde.late`), ``grade-class``, the report,
the feedback and the exports (through the gradebook's penalties).
"""

from __future__ import annotations

import csv
import io
import re
from dataclasses import dataclass
from datetime import datetime, time

import yaml

from grader.errors import CourseError

EXTENSION_KEYS = ("student", "assignment", "due", "excused")
STUDENT_ID = re.compile(r"\A[A-Za-z0-9][A-Za-z0-9._@+-]{0,99}\Z")  # as grader.engine.store.SAFE_ID


@dataclass(frozen=True)
class Extension:
    """One student's own due date on one assignment (``due``, in calendar.time_zone), or their lateness
    excused (``excused``): course.yaml ``calendar.extensions`` (see :func:`extensions_of`)."""

    student: str
    assignment: str
    due: datetime | None = None
    excused: bool = False


class Extensions(tuple):
    """The course's extensions (a tuple of :class:`Extension`), found by assignment and student."""

    def of(self, assignment: str, student: str | None) -> Extension | None:
        """The extension ``student`` has on ``assignment``, if any."""
        return next((x for x in self if (x.assignment, x.student) == (assignment, student)), None)

    def due(self, assignment: str, student: str | None) -> datetime | None:
        """``student``'s own due date on ``assignment`` (in calendar.time_zone), or None."""
        extension = self.of(assignment, student) if student else None
        return extension.due if extension is not None else None


def extensions_of(v, node, assignments: set[str]) -> Extensions:
    """The extensions of ``calendar.extensions`` (a list, or the name of a CSV file beside course.yaml)."""
    if node is None:
        return Extensions()
    if isinstance(node, yaml.ScalarNode):
        return Extensions(_extensions_csv(v, node, assignments))
    if not isinstance(node, yaml.SequenceNode):
        raise v.fail(node, "calendar.extensions", "a list of {student, assignment, due or excused}, or a CSV file")
    out: list[Extension] = []
    for i, item in enumerate(node.value):
        key = f"calendar.extensions[{i}]"
        fields = v.mapping(item, key, required=("student", "assignment"), optional=("due", "excused"))
        student = v.scalar(fields["student"], f"{key}.student", str)
        assignment = v.scalar(fields["assignment"], f"{key}.assignment", str)
        due = v.due(fields["due"], f"{key}.due") if "due" in fields else None
        excused = v.scalar(fields["excused"], f"{key}.excused", bool) if "excused" in fields else False
        problem = _extension_problem(student, assignment, due, excused, assignments, out)
        if problem:
            raise v.fail(item, key, problem)
        out.append(Extension(student, assignment, due, excused))
    return Extensions(out)


def _extension_problem(student, assignment, due, excused, assignments, earlier) -> str | None:
    if not STUDENT_ID.match(student):
        return f"student {student[:40]!r} is not a student id (letters, digits and . _ @ + - only)"
    if assignment not in assignments:
        return f"unknown assignment {assignment!r} (course.yaml defines {', '.join(sorted(assignments))})"
    if (due is None) == (not excused):
        return "give either due (a date of their own) or excused: true"
    if any((x.student, x.assignment) == (student, assignment) for x in earlier):
        return f"{student} has two extensions on {assignment}"
    return None


def _extensions_csv(v, node, assignments: set[str]) -> tuple[Extension, ...]:
    name = v.scalar(node, "calendar.extensions", str)
    path = (v.root / name).resolve()
    if v.root.resolve() not in path.parents or not path.is_file():
        raise v.fail(node, "calendar.extensions", f"{name!r} is not a CSV file in the course's folder")
    reader = csv.DictReader(io.StringIO(path.read_text(encoding="utf-8-sig")))
    columns = [c.strip().lower() for c in reader.fieldnames or []]
    if not {"student", "assignment"} <= set(columns) or not set(columns) <= set(EXTENSION_KEYS):
        raise CourseError(
            f"{path.name}:1: the header must be student,assignment,due,excused; it is {','.join(columns)}"
        )
    reader.fieldnames = columns
    out: list[Extension] = []
    for line, row in enumerate(reader, start=2):
        cells = {k: (row.get(k) or "").strip() for k in EXTENSION_KEYS}
        try:
            due = datetime.fromisoformat(cells["due"]) if cells["due"] else None
        except ValueError:
            raise CourseError(f"{path.name}:{line}: due {cells['due']!r} is not a date and time") from None
        if due is not None and (due.tzinfo is not None):
            raise CourseError(f"{path.name}:{line}: give the due date without a zone (calendar.time_zone)")
        if due is not None and len(cells["due"]) <= 10:
            due = datetime.combine(due.date(), time(23, 59, 59))  # a day: the end of it
        excused = cells["excused"].lower() in ("true", "yes", "1")
        problem = _extension_problem(cells["student"], cells["assignment"], due, excused, assignments, out)
        if problem:
            raise CourseError(f"{path.name}:{line}: {problem}")
        out.append(Extension(cells["student"], cells["assignment"], due, excused))
    return tuple(out)


# -- the LMS's gradebook columns (lms.columns) ---------------------------------------------------------------
# Which column of each LMS's gradebook an assignment's grades go to (`grader export`), when the LMS's own
# name for it is not the assignment's id or title:
#
#     lms:
#       columns:
#         ps4b: {canvas: "Problem Set 4b (123456)", moodle: "Problem Set 4b"}
LMS_EXPORTS = ("canvas", "moodle")


def lms_columns_of(v, node, assignments: set[str]) -> dict[str, dict[str, str]]:
    """``lms.columns``: assignment -> {LMS: the column's header in that LMS's gradebook}."""
    if node is None:
        return {}
    fields = v.mapping(node, "lms", required=(), optional=("columns",))
    if "columns" not in fields:
        return {}
    columns = v.mapping(fields["columns"], "lms.columns", required=(), optional=sorted(assignments))
    out: dict[str, dict[str, str]] = {}
    for assignment, item in columns.items():
        key = f"lms.columns.{assignment}"
        headers = v.mapping(item, key, required=(), optional=LMS_EXPORTS)
        out[assignment] = {lms: v.scalar(h, f"{key}.{lms}", str) for lms, h in headers.items()}
    return out
