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

from dataclasses import dataclass
from pathlib import Path

import yaml

from grader.core.course import BEGIN_SOLUTION, END_SOLUTION, IDENTIFIER, Assignment, Course, Written
from grader.errors import CourseError
from grader.feedback import format_points

RUBRIC_DIR = "rubrics"


@dataclass(frozen=True)
class Criterion:
    text: str
    share: float


@dataclass(frozen=True)
class WrittenQuestion:
    id: str
    title: str
    question: str
    rubric: tuple[Criterion, ...]

    def criterion_points(self, points: float) -> list[tuple[Criterion, float]]:
        """Each criterion with its part of ``points`` (shares scaled to the configured points)."""
        total = sum(c.share for c in self.rubric)
        return [(c, points * c.share / total) for c in self.rubric]


def load_written(course: Course) -> dict[str, WrittenQuestion]:
    """The questions of ``autograder-tests/written.yaml`` (empty when the file does not exist).

    Raises
    ------
    CourseError
        Naming the question and the key when the file is not shaped as documented.
    """
    path = course.written_file
    if not path.is_file():
        return {}
    name = f"autograder-tests/{path.name}"
    try:
        data = yaml.safe_load(path.read_text(encoding="utf-8")) or {}
    except yaml.YAMLError as exc:
        raise CourseError(f"{name}: not valid YAML: {exc}") from None
    if not isinstance(data, dict):
        raise CourseError(f"{name}: must map question ids to {{title, question, rubric}}")
    out = {}
    for qid, entry in data.items():
        where = f"{name}: {qid}"
        if not isinstance(qid, str) or not IDENTIFIER.match(qid):
            raise CourseError(f"{where}: a question id must be a Python identifier")
        if not isinstance(entry, dict) or set(entry) - {"title", "question", "rubric"}:
            raise CourseError(f"{where}: must be a mapping of title, question and rubric")
        for key in ("title", "question"):
            if not isinstance(entry.get(key), str) or not entry[key].strip():
                raise CourseError(f"{where}.{key}: must be a non-empty text")
        rubric = entry.get("rubric")
        if not isinstance(rubric, list) or not rubric:
            raise CourseError(f"{where}.rubric: must be a non-empty list of {{criterion, share}}")
        criteria = []
        for i, item in enumerate(rubric):
            if not isinstance(item, dict) or not isinstance(item.get("criterion"), str) or set(item) - {"criterion",
                                                                                                      "share"}:
                raise CourseError(f"{where}.rubric[{i}]: must be {{criterion: TEXT, share: NUMBER}}")
            share = item.get("share", 1)
            if isinstance(share, bool) or not isinstance(share, (int, float)) or not share > 0:
                raise CourseError(f"{where}.rubric[{i}].share: must be a positive number, got {share!r}")
            criteria.append(Criterion(item["criterion"].strip(), float(share)))
        out[qid] = WrittenQuestion(qid, entry["title"].strip(), entry["question"].strip(), tuple(criteria))
    return out


def questions_of(course: Course, assignment: Assignment) -> list[tuple[Written, WrittenQuestion]]:
    """The written questions ``assignment`` asks, each with its text and rubric.

    Raises
    ------
    CourseError
        When course.yaml names a question autograder-tests/written.yaml does not have.
    """
    if not assignment.written:
        return []
    known = load_written(course)
    out = []
    for w in assignment.written:
        if w.question not in known:
            have = ", ".join(known) or f"none: solutions/{course.written_file.name} does not exist"
            raise CourseError(f"course.yaml: {assignment.id}.written: no question {w.question!r} in "
                              f"autograder-tests/{course.written_file.name} (it has: {have})")
        out.append((w, known[w.question]))
    return out


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
    parts = [f"# {assignment.id}: rubrics of the written answers",
             "",
             "Grade each answer in formgrader (Manual Grading, cell `written_<question>`); the points are the "
             "cell's maximum in the gradebook."]
    for w, q in asked:
        parts += ["", f"## `{w.grade_id}`: {q.title} ({format_points(w.points)} points)", "", q.question, "",
                  rubric_markdown(q, w.points)]
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("\n".join(parts) + "\n", encoding="utf-8")
    return path
