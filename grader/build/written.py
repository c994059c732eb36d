"""Optional written answers: questions graded by hand in formgrader, with a rubric for the graders.

``autograder-tests/written.yaml`` holds the module's written questions, each with its rubric (criteria
with a share of the points). An assignment of course.yaml lists the ones it asks
(``written: [{question: ID, points: N}]``; none by default). Each becomes two cells of the
source notebook: the question (read-only) and an nbgrader *manually graded answer* cell
(a Markdown cell with ``solution`` and ``grade``, ``points`` as configured) whose whole text is
the rubric inside a solution region. ``nbgrader generate_assignment`` replaces that region with
its answer stub, so the release (and the kit made from it) never holds the rubric; the leak
check looks for its lines. Graders read the rubric in ``rubrics/<assignment>.md`` of the course
directory (outside source/ and release/), beside formgrader.
"""

from __future__ import annotations

from pathlib import Path

from grader.core.course import (
    BEGIN_SOLUTION,
    END_SOLUTION,
    Assignment,
    Course,
    WrittenQuestion,
    load_written,
    questions_of,
)
from grader.errors import CourseError
from grader.feedback import format_points

RUBRIC_DIR = "rubrics"


def rubric_markdown(question: WrittenQuestion, points: float) -> str:
    """The rubric as Markdown, each criterion with its points."""
    lines = [f"**Rubric for graders** ({format_points(points)} points; not released to students)", ""]
    for criterion, share in question.criterion_points(points):
        lines.append(f"- ({format_points(share)} pt) {criterion.text}")
    return "\n".join(lines)


def answer_cell_source(question: WrittenQuestion, points: float) -> str:
    """The source notebook's answer cell: the rubric as a solution region (the release gets the stub)."""
    return f"{BEGIN_SOLUTION}\n{rubric_markdown(question, points)}\n{END_SOLUTION}"


def rubric_lines(course: Course) -> list[str]:
    """Every criterion of autograder-tests/written.yaml, as written there and as each assignment's answer cell
    and rubric file show it (with its points), for the leak check."""
    try:
        questions = load_written(course)
    except CourseError:
        return []
    lines = [c.text for q in questions.values() for c in q.rubric]
    for assignment in course.assignments:
        for w in assignment.written:
            if w.question in questions:
                lines += rubric_markdown(questions[w.question], w.points).splitlines()
    return lines


def write_rubrics(course: Course, course_dir: Path, assignment: Assignment) -> Path | None:
    """``rubrics/<assignment>.md`` of the course directory for the graders (None: no written answers)."""
    path = Path(course_dir) / RUBRIC_DIR / f"{assignment.id}.md"
    asked = questions_of(course, assignment)
    if not asked:
        if path.is_file():
            path.unlink()
        return None
    parts = [
        f"# {assignment.id}: rubrics of the written answers",
        "",
        "Grade each answer in formgrader (Manual Grading, cell `written_<question>`); the points are the "
        "cell's maximum in the gradebook.",
    ]
    for w, q in asked:
        parts += [
            "",
            f"## `{w.grade_id}`: {q.title} ({format_points(w.points)} points)",
            "",
            q.question,
            "",
            rubric_markdown(q, w.points),
        ]
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("\n".join(parts) + "\n", encoding="utf-8")
    return path
