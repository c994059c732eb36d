"""Canvas's own gradebook, as the instructor downloads it (Grades > Export > Export Entire Gradebook).

Canvas imports a CSV by matching its headers to the columns of its own export (``Problem Set 4b
(123456)``: the assignment's name and Canvas's id) and creates a new assignment for any other header;
it finds students by ``ID`` (its user id), else ``SIS User ID`` or ``SIS Login ID``. So an import-ready
file takes its headers and its students' identifying columns from that export: each assignment's
column is the one ``lms.columns`` of course.yaml names, else the one whose name (without the id) is the
assignment's id or title; each student's row starts with Canvas's own cells for the user the gradebook
knows as their LMS id.
"""

from __future__ import annotations

import csv
import io
import re
from dataclasses import dataclass, field
from pathlib import Path

from grader.errors import GraderError

MAX_BYTES = 32 * 2**20
ASSIGNMENT_COLUMN = re.compile(r"^(?P<name>.*\S) \((?P<id>\d+)\)$")  # "Problem Set 4b (123456)"


@dataclass
class CanvasGradebook:
    """The headers and students of a Canvas gradebook export."""

    fixed: list[str]  # the identifying columns, as Canvas heads them (Student, ID, SIS User ID, ...)
    columns: list[str]  # its assignments' columns
    students: dict[str, list[str]] = field(default_factory=dict)  # Canvas user ID -> its identifying cells


def read_canvas_gradebook(path: Path) -> CanvasGradebook:
    """The Canvas gradebook export at ``path``.

    Raises
    ------
    GraderError
        When it is not one (no ``Student`` and ``ID`` columns), naming what it has.
    """
    path = Path(path)
    if not path.is_file() or path.stat().st_size > MAX_BYTES:
        raise GraderError(f"{path}: not a Canvas gradebook export (Grades > Export) of at most 32 MB")
    try:
        rows = list(csv.reader(io.StringIO(path.read_text(encoding="utf-8-sig"))))
    except (UnicodeDecodeError, csv.Error) as exc:
        raise GraderError(f"{path}: not a CSV file in UTF-8 ({exc})") from None
    header = [h.strip() for h in rows[0]] if rows else []
    if header[:2] != ["Student", "ID"]:
        raise GraderError(f"{path}: a Canvas gradebook export starts with Student, ID; this one has {header[:5]}")
    first = next((i for i, h in enumerate(header) if ASSIGNMENT_COLUMN.match(h)), len(header))
    book = CanvasGradebook(header[:first], [h for h in header[first:] if ASSIGNMENT_COLUMN.match(h)])
    for row in rows[1:]:
        cells = (row + [""] * len(header))[: len(header)]
        if cells[1].strip().isdigit():  # a student (not Points Possible, not Manual Posting)
            book.students[cells[1].strip()] = [c.strip() for c in cells[:first]]
    return book


def _plain(text: str) -> str:
    return " ".join(text.casefold().split())


def canvas_columns(assignments: list[tuple[str, str]], book: CanvasGradebook | None, mapping: dict) -> dict[str, str]:
    """assignment id -> the Canvas column its grades go to.

    ``assignments``: (id, title); ``mapping``: course.yaml's ``lms.columns`` (id -> {"canvas": header}).

    Raises
    ------
    GraderError
        When an assignment has no column in the export, or several, with how to name it.
    """
    out = {}
    for aid, title in assignments:
        named = (mapping.get(aid) or {}).get("canvas")
        if book is None:
            out[aid] = named or aid
            continue
        if named:
            found = [c for c in book.columns if c == named]
        else:
            found = [
                c for c in book.columns if _plain(ASSIGNMENT_COLUMN.match(c)["name"]) in (_plain(aid), _plain(title))
            ]
        if len(found) != 1:
            which = f"named {named!r} by course.yaml lms.columns" if named else f"named {aid} or {title!r}"
            raise GraderError(
                f"{'no' if not found else 'more than one'} column of the Canvas gradebook is {which} (its "
                f"assignments: {', '.join(book.columns) or 'none'}); name it in course.yaml: "
                f'lms: {{columns: {{{aid}: {{canvas: "<its header, e.g. Problem Set 4b (123456)>"}}}}}}'
            )
        out[aid] = found[0]
    return out
