"""Feedback a student reads, from the records of ``grader grade-class`` (or ``grader autograde``).

One self-contained HTML page and one Markdown file per student: the total, each exercise's
score, what to fix first, then the notes and the distinct failure messages -- the same text as
the nbgrader feedback and Gradescope's ``results.json`` (:mod:`grader.feedback`), never a hidden
value. Every string a page holds goes through one of two escapes, :func:`html_text` (HTML) and
:func:`md` (Markdown): both show control characters and bidirectional overrides as visible escapes
(:func:`grader.display.visible`), so a display name the LMS wrote (the student may edit it) cannot
retitle a terminal or reorder a line, and then escape markup: the HTML runs no script and loads
nothing (its Content-Security-Policy says so too), and Markdown renders it as text.
"""

from __future__ import annotations

import html
import re
from pathlib import Path

from grader.calendar import describe, due_text_for, late_text, lateness
from grader.display import visible
from grader.engine.record import GradeRecord
from grader.engine.store import SAFE_ID, ResultStore, atomic_write
from grader.errors import GraderError
from grader.feedback import exercise_feedback, format_points

CSP = "default-src 'none'; style-src 'unsafe-inline'"
STYLE = """body{font-family:system-ui,sans-serif;max-width:56rem;margin:2rem auto;padding:0 1rem;color:#222}
h1{font-size:1.5rem}h2{font-size:1.1rem;margin-top:1.6rem}.full{color:#1a7f37}.part{color:#9a6700}.none{color:#cf222e}
table{border-collapse:collapse}td,th{padding:.2rem .8rem;border-bottom:1px solid #ddd;text-align:left}
li{margin:.2rem 0;white-space:pre-wrap}.note{color:#555}"""
MARKDOWN_SPECIAL = re.compile(r"([\\`*_{}\[\]<>()#+\-.!|~&])")


def md(text) -> str:
    """``text`` as Markdown that renders it literally (no markup, no HTML, no control character, one line)."""
    return MARKDOWN_SPECIAL.sub(r"\\\1", " ".join(visible(text).split()))


def html_text(value) -> str:
    """``value`` as HTML text (an element's content or a quoted attribute), control characters visible."""
    return html.escape(visible(value))


def _level(score: float, most: float) -> str:
    return "full" if score >= most else ("part" if score > 0 else "none")


def _sections(record: GradeRecord):
    """(assignment, [(function, feedback)]) in the course's order."""
    by_assignment: dict[str, list] = {}
    for name, f in record.result.functions.items():
        by_assignment.setdefault(f.assignment, []).append((name, exercise_feedback(record, name)))
    return by_assignment.items()


class Calendar:
    """One student's due dates and late penalties, from the manifest ``grade-class`` wrote (its
    ``calendar``, and the submission time it read from ``timestamp.txt``, if any)."""

    def __init__(self, manifest: dict | None, student: str):
        manifest = manifest or {}
        self.student = student
        self.calendar = manifest.get("calendar") if isinstance(manifest.get("calendar"), dict) else {}
        self.submitted = (manifest.get("submitted") or {}).get(student)
        self.problem = (manifest.get("submitted_problems") or {}).get(student)
        person = (manifest.get("people") or {}).get(student)
        self.name = person.get("name") if isinstance(person, dict) and isinstance(person.get("name"), str) else ""

    def who(self) -> str:
        """The student as the page names them: the LMS's name (Unicode, as written) and the id."""
        return f"{self.name} ({self.student})" if self.name else self.student

    def line(self, assignment: str, score: float) -> str | None:
        """``due ...; submitted ... UTC, 1 d 9 h late: -1.50 points (policy)``, or None without a calendar."""
        if not self.calendar:
            return None

        text = f"{due_text_for(self.calendar, assignment, self.student)} "
        text += f"({describe(self.calendar.get('late_policy') or {})})"
        late = lateness(self.calendar, self.submitted, assignment, score, self.student)
        if late:
            text += f"; submitted {self.submitted} UTC, {late_text(late[0])} late: -{format_points(late[1])} points"
        elif self.submitted and (self.calendar.get("due") or {}).get(assignment):
            text += f"; submitted {self.submitted} UTC, on time"
        return text

    def penalty(self, assignment: str, score: float) -> float:
        late = lateness(self.calendar, self.submitted, assignment, score, self.student) if self.calendar else None
        return late[1] if late else 0.0

    def total_note(self, total: float, sections) -> str:
        """`` (after late penalties: X)`` when some assignment lost points, else ``""``."""
        lost = sum(self.penalty(a, sum(fb["score"] for _, fb in ex)) for a, ex in sections)
        if not lost:
            return ""
        return f"; after the late penalty: {format_points(total - lost)}"


def render_html(record: GradeRecord, course_title: str, manifest: dict | None = None) -> str:
    e = html_text
    cal = Calendar(manifest, record.student)
    sections = list(_sections(record))
    total = f"{format_points(record.total)} of {format_points(record.max)} points" + cal.total_note(
        record.total, sections
    )
    parts = [
        f'<!DOCTYPE html><html lang="en"><head><meta charset="utf-8">'
        f'<meta http-equiv="Content-Security-Policy" content="{CSP}">'
        f"<title>{e(course_title)}: feedback for {e(cal.who())}</title><style>{STYLE}</style></head><body>",
        f"<h1>{e(course_title)}: feedback for {e(cal.who())}</h1>",
        f"<p><strong>{e(total)}</strong> (graded {e(record.graded_at)} by the course grader; the hidden "
        "tests are not shown, their messages name what went wrong)</p>",
    ]
    for assignment, exercises in sections:
        score = sum(fb["score"] for _, fb in exercises)
        most = sum(fb["max"] for _, fb in exercises)
        parts.append(f"<h2>{e(assignment)}: {format_points(score)} of {format_points(most)}</h2>")
        if cal.line(assignment, score):
            parts.append(f'<p class="note">{e(cal.line(assignment, score))}</p>')
        parts.append("<table><tr><th>exercise</th><th>score</th><th>what to look at</th></tr>")
        for name, fb in exercises:
            items = [f'<li class="note">{e(n)}</li>' for n in fb["notes"]]
            items += [f"<li>{e(m)}</li>" for m in fb["messages"]]
            checks = f"<br><small>{fb['passed']} of {fb['checks']} checks passed</small>" if fb["checks"] else ""
            parts.append(
                f'<tr><td><code>{e(name)}</code></td><td class="{_level(fb["score"], fb["max"])}">'
                f"{format_points(fb['score'])}/{format_points(fb['max'])}</td>"
                f"<td>{'<ul>' + ''.join(items) + '</ul>' if items else 'all checks passed'}{checks}</td></tr>"
            )
        parts.append("</table>")
    parts.append("</body></html>\n")
    return "\n".join(parts)


def render_markdown(record: GradeRecord, course_title: str, manifest: dict | None = None) -> str:
    cal = Calendar(manifest, record.student)
    sections = list(_sections(record))
    lines = [
        f"# {md(course_title)}: feedback for {md(cal.who())}",
        "",
        f"**{format_points(record.total)} of {format_points(record.max)} points"
        f"{md(cal.total_note(record.total, sections))}** (graded "
        f"{md(record.graded_at)} by the course grader; the hidden tests are not shown, their messages name "
        "what went wrong)",
    ]
    for assignment, exercises in sections:
        score = sum(fb["score"] for _, fb in exercises)
        most = sum(fb["max"] for _, fb in exercises)
        lines += ["", f"## {md(assignment)}: {format_points(score)} of {format_points(most)}"]
        if cal.line(assignment, score):
            lines += ["", md(cal.line(assignment, score))]
        for name, fb in exercises:
            lines += [
                "",
                f"- `{visible(name, one_line=True)}`: {format_points(fb['score'])}/{format_points(fb['max'])}"
                + (f" ({fb['passed']} of {fb['checks']} checks passed)" if fb["checks"] else ""),
            ]
            lines += [f"  - note: {md(n)}" for n in fb["notes"]]
            lines += [f"  - {md(m)}" for m in fb["messages"]]
    return "\n".join(lines) + "\n"


def write_feedback(
    results: Path, out: Path | None = None, students: list[str] | None = None, course_title: str | None = None
) -> tuple[Path, list[str]]:
    """Write ``<out>/<student>.html`` and ``.md`` for every record in ``results`` (or ``students``);
    (the folder, the students written).

    Raises
    ------
    GraderError
        When ``results`` holds no record (or not one of ``students``).
    """
    store = ResultStore(Path(results))
    manifest = store.manifest() or {}
    title = course_title or manifest.get("module_title") or manifest.get("course_title") or "Feedback"
    if students:
        bad = [s for s in students if not SAFE_ID.match(s) or store.load(s) is None]
        if bad:
            raise GraderError(f"{results} has no result for: {', '.join(bad)}")
    records = store.all_records(students)
    if not records:
        raise GraderError(
            f"{results} holds no graded submission (results/<student>.json): give the --out "
            "directory of `grader grade-class`"
        )
    out = Path(out) if out is not None else Path(results) / "feedback"
    out.mkdir(parents=True, exist_ok=True)
    for record in records:  # a student id is SAFE_ID: a plain file name
        atomic_write(out / f"{record.student}.html", render_html(record, title, manifest))
        atomic_write(out / f"{record.student}.md", render_markdown(record, title, manifest))
    return out, [r.student for r in records]
