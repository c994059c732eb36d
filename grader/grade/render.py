"""Human-readable grade tables."""

from __future__ import annotations

from rich.console import Console
from rich.table import Table
from rich.text import Text

from grader import display
from grader.course import Course
from grader.grade.results import SubmissionResult


def format_points(x: float) -> str:
    """Points for people: whole numbers bare, anything else to two decimals."""
    return f"{x:g}" if x == int(x) else f"{x:.2f}"


def grade_table(course: Course, result: SubmissionResult, *, title: str | None = None,
                max_messages: int = 3, show_total: bool = True) -> Table:
    table = Table(title=display.text(title or f"Grades for {result.submission}", one_line=True), show_lines=False,
                  expand=False)
    table.add_column("assignment", style="dim")
    table.add_column("function")
    table.add_column("score", justify="right")
    table.add_column("what to look at", overflow="fold", max_width=90)
    for name, f in result.functions.items():
        score = Text(f"{format_points(f.score)}/{format_points(f.max)}",
                     style="green" if f.score == f.max else ("yellow" if f.score > 0 else "red"))
        notes = f.error or ""
        messages = [] if f.error else f.messages
        if messages:
            shown = messages[:max_messages]
            extra = f" (+{len(messages) - max_messages} more)" if len(messages) > max_messages else ""
            notes = "; ".join(([notes] if notes else []) + shown) + extra
        table.add_row(f.assignment, name, score, display.text(notes))
    if show_total:
        table.add_section()
        table.add_row("", Text("total", style="bold"), Text(f"{format_points(result.total)}/{format_points(result.max)}", style="bold"),
                      "")
    return table


def print_grades(course: Course, result: SubmissionResult, console: Console | None = None) -> None:
    (console or Console()).print(grade_table(course, result))
