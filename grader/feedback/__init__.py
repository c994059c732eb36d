"""Everything a student (or an instructor about a student) reads: points, grade tables, reports.

- :func:`format_points`: points for people;
- :func:`grade_table` / :func:`print_grades`: the table of ``grader grade``;
- :func:`function_report`: score and messages of one exercise as plain text, the output
  of its autograded cell in nbgrader and of its test in Gradescope's ``results.json``;
- :func:`first_issue`: the first thing to look at in a record;
- :mod:`grader.feedback.gradescope`: Gradescope's ``results.json`` (``grade --gradescope`` and the
  Gradescope autograder both write it).

All text comes from the failure messages of the tests (written for students: the
misconception, never a hidden value) and, for notebooks, from the extraction.
"""

from __future__ import annotations

from rich.console import Console
from rich.table import Table
from rich.text import Text

from grader import display
from grader.core.results import SubmissionResult, name_cells
from grader.engine.record import GradeRecord

GENERAL = ""  # notes key for the submission as a whole
# How a note that says which file (and cell) was graded begins: it informs, where every other note warns
# (a cell left out, a notebook that could not be read) and is marked so.
INFORMATION = "graded from "


def is_information(note: str) -> bool:
    return note.startswith(INFORMATION)


def format_points(x: float) -> str:
    """Points for people: whole numbers bare, anything else to two decimals."""
    return f"{x:g}" if x == int(x) else f"{x:.2f}"


# -- tables (grader grade, grader demo) ------------------------------------------------------
def grade_table(
    result: SubmissionResult,
    *,
    title: str | None = None,
    max_messages: int = 3,
    show_total: bool = True,
    record: GradeRecord | None = None,
) -> Table:
    """``record``: when the submission came from notebooks, its notes come first and cell lines are
    named as the student sees them ('the cell under "gae_advantages (5 points)", In [3], line 3')."""
    table = Table(
        title=display.text(title or f"Grades for {result.submission}", one_line=True), show_lines=False, expand=False
    )
    table.add_column("assignment", style="dim")
    table.add_column("function")
    table.add_column("score", justify="right")
    table.add_column("what to look at", overflow="fold", max_width=90)
    for name, f in result.functions.items():
        score = Text(
            f"{format_points(f.score)}/{format_points(f.max)}",
            style="green" if f.score == f.max else ("yellow" if f.score > 0 else "red"),
        )
        notes = f.error or ""
        messages = [] if f.error else f.messages
        if record is not None:
            messages = _notes(record, name) + [_where(m, record.spans) for m in (f.messages if f.error else messages)]
        if messages:
            shown = messages[:max_messages]
            extra = f" (+{len(messages) - max_messages} more)" if len(messages) > max_messages else ""
            notes = "; ".join(([notes] if notes else []) + shown) + extra
        table.add_row(f.assignment, name, score, display.text(notes))
    if show_total:
        table.add_section()
        table.add_row(
            "",
            Text("total", style="bold"),
            Text(f"{format_points(result.total)}/{format_points(result.max)}", style="bold"),
            "",
        )
    return table


def print_grades(result: SubmissionResult, console: Console | None = None, record: GradeRecord | None = None) -> None:
    (console or Console()).print(grade_table(result, record=record))


# -- reports of one exercise (nbgrader feedback, Gradescope) --------------------------------
def _where(text: str, spans: dict[str, list]) -> str:
    """'cell_gae_advantages.py, line 7' -> 'the cell under "gae_advantages (5 points)", In [3], line 7' when
    the line is in a cell (:func:`grader.core.results.name_cells`)."""
    return name_cells(text, spans)


def _notes(record: GradeRecord, function: str) -> list[str]:
    return record.notes.get(GENERAL, []) + record.notes.get(function, [])


def _messages(record: GradeRecord, function: str) -> list[str]:
    """The distinct failure messages of one exercise, cell lines named as the student sees them."""
    f = record.result.functions[function]
    messages = f.messages
    if f.error == "not implemented" and function not in record.labs:
        messages = [f"{function} is not implemented yet: it still raises NotImplementedError"]
    if f.error and not messages:
        messages = [f"{function}: {f.error}"]
    return [_where(m, record.spans) for m in messages]


def exercise_feedback(record: GradeRecord, function: str) -> dict:
    """One exercise as a student reads it: ``score``, ``max``, ``notes``, ``messages`` (as in
    :func:`function_report`), and how many of its ``checks`` ``passed``."""
    f = record.result.functions[function]
    return {
        "score": f.score,
        "max": f.max,
        "notes": _notes(record, function),
        "messages": _messages(record, function),
        "checks": len(f.tests),
        "passed": sum(1 for t in f.tests if t.passed),
    }


def function_report(record: GradeRecord, function: str) -> str:
    """Score and messages of one exercise, as plain text."""
    f = record.result.functions.get(function)
    if f is None:
        return f"{function}: not graded\n"
    lines = [
        f"{function}: {format_points(f.score)} of {format_points(f.max)} points "
        "(hidden tests, run by the course grader)"
    ]
    lines += [note if is_information(note) else f"! {note}" for note in _notes(record, function)]
    lines += [f"\u2717 {message}" for message in _messages(record, function)]
    if f.tests:
        lines.append(f"{sum(1 for t in f.tests if t.passed)} of {len(f.tests)} checks passed")
    return "\n".join(lines) + "\n"


def first_issue(record: GradeRecord) -> str:
    """The first thing to look at in a record: a note or message of the first exercise that lost points."""
    for function, (score, most) in record.scores().items():
        if score < most:
            found = _notes(record, function) + _messages(record, function)
            return found[0] if found else f"{function}: {format_points(score)}/{format_points(most)}"
    return ""
