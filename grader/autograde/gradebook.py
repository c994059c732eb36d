"""Talk to nbgrader's gradebook directly, for what nbgrader's autograde step cannot do.

- A notebook nbgrader cannot read (invalid JSON) or cannot process makes nbgrader
  drop that student's autograded folder. :func:`write_placeholder` gives the
  student an autograded notebook anyway (their readable notebook, or the release
  with a note on top) and records the trusted grades, so feedback and exports
  cover everyone.
- :func:`gradebook_scores` reads back what the gradebook holds, to check it against
  the trusted records.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import nbformat
from nbgrader.api import Gradebook, MissingEntry

from grader.autograde.extract import GENERAL, check_notebook, read_notebook
from grader.autograde.preprocessors import exercise_of, exercise_of_grade, fill_outputs
from grader.autograde.records import scores
from grader.autograde.sanitize import sanitize_notebook


def db_url(course_dir: Path) -> str:
    return f"sqlite:///{Path(course_dir).resolve() / 'gradebook.db'}"


def _grades(gb: Gradebook, assignment: str) -> Iterator[tuple[str, str, object]]:
    """(student, notebook, grade) for every grade of every submission of ``assignment``."""
    try:
        submissions = gb.find_assignment(assignment).submissions
    except MissingEntry:
        return
    for submission in submissions:
        for nb in submission.notebooks:
            for grade in nb.grades:
                yield submission.student.id, nb.name, grade


def gradebook_scores(course_dir: Path, course_id: str, assignment: str) -> dict[str, dict[str, float | None]]:
    """student -> {exercise: auto score} for every submission of ``assignment`` in the gradebook."""
    out: dict[str, dict[str, float | None]] = {}
    with Gradebook(db_url(course_dir), course_id) as gb:
        for student, _, grade in _grades(gb, assignment):
            grades = out.setdefault(student, {})
            function = exercise_of_grade(grade.name)
            if function is not None:
                grades[function] = grade.auto_score
    return out


def manual_state(course_dir: Path, course_id: str, assignment: str) -> dict[tuple, tuple]:
    """(student, notebook, cell) -> (manual score, extra credit) of every grade of ``assignment``.

    Only people set these; a change while student code was being graded is tampering.
    """
    with Gradebook(db_url(course_dir), course_id) as gb:
        return {(student, notebook, grade.name): (grade.manual_score, grade.extra_credit)
                for student, notebook, grade in _grades(gb, assignment)}


def restore_manual(course_dir: Path, course_id: str, assignment: str, before: dict[tuple, tuple]) -> list[str]:
    """Put back manual scores and extra credit that changed since ``before``; say what was restored."""
    restored = []
    with Gradebook(db_url(course_dir), course_id) as gb:
        for student, notebook, grade in _grades(gb, assignment):
            manual, extra = before.get((student, notebook, grade.name), (None, None))
            if (grade.manual_score, grade.extra_credit) != (manual, extra):
                restored.append(f"{student}/{grade.name}: manual score {grade.manual_score}, extra credit "
                                f"{grade.extra_credit} -> {manual}, {extra}")
                grade.manual_score, grade.extra_credit = manual, extra
                grade.needs_manual_grade = grade.auto_score is None
        gb.db.commit()
    return restored


def write_placeholder(course_dir: Path, course_id: str, assignment: str, notebook: str, student: str,
                      record: dict) -> Path:
    """An autograded notebook and gradebook grades for a submission nbgrader could not process."""
    course_dir = Path(course_dir)
    release = nbformat.read(course_dir / "release" / assignment / notebook, as_version=4)
    # The student's notebook as extraction saw it: checked cells only, never through a link.
    folder = course_dir / "submitted" / student / assignment
    problem = None
    submitted = None
    if not (folder.is_symlink() or folder.parent.is_symlink()):
        data, problem = read_notebook(folder / notebook)
        submitted = check_notebook(data)[0] if data is not None else None
    base = submitted if submitted is not None else release
    present = {exercise_of(c) for c in base.cells}
    for cell in release.cells:  # bring back any autograded cell the student deleted
        function = exercise_of(cell)
        if function and function not in present:
            base.cells.append(cell)
    notes = record.get("notes", {}).get(GENERAL, []) or ([problem] if problem else [])
    why = " ".join(notes) or "nbgrader could not process this notebook"
    note = nbformat.v4.new_markdown_cell(
        f"**Grading note.** {why} The grades below come from the course grader; "
        "exercises it could not find score zero.")
    note.id = "grading-note"
    base.cells.insert(0, note)
    fill_outputs(base, record)
    sanitize_notebook(base)
    dest = course_dir / "autograded" / student / assignment / notebook
    dest.parent.mkdir(parents=True, exist_ok=True)
    nbformat.write(base, dest)

    points = scores(record)
    with Gradebook(db_url(course_dir), course_id) as gb:
        gb.update_or_create_student(student)
        gb.update_or_create_submission(assignment, student)
        notebook_id = Path(notebook).stem
        submission = gb.find_submission_notebook(notebook_id, assignment, student)
        for grade in submission.grades:
            function = exercise_of_grade(grade.name)
            grade.auto_score = float(points[function][0]) if function in points else 0.0
            grade.needs_manual_grade = False
        gb.db.commit()
    return dest
