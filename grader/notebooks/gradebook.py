"""nbgrader's gradebook and configuration, as ``grader autograde`` uses them.

The gradebook is wherever nbgrader's configuration says (:func:`course_gradebook`):
``CourseDirectory.db_url`` in the course directory's ``nbgrader_config.py`` (or
Jupyter's configuration folders), or a URL given on the command line; nbgrader's
default is ``sqlite:///<course-dir>/gradebook.db``. Everything goes through
nbgrader's :class:`~nbgrader.api.Gradebook`, so SQLite and PostgreSQL work alike.

- :func:`enrol` adds the class's students once (two runs may share a database);
- :func:`gradebook_scores` reads back what the gradebook holds, to check it against
  the trusted records; :func:`manual_state` and :func:`restore_manual` keep manual
  scores what people made them. Grades are written by :mod:`grader.autograde.recorder`.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

from jupyter_core.paths import jupyter_config_path
from nbgrader.api import Gradebook, InvalidEntry, MissingEntry
from nbgrader.coursedir import CourseDirectory
from sqlalchemy.engine import make_url
from sqlalchemy.exc import ArgumentError, NoSuchModuleError, SQLAlchemyError
from traitlets.config import Config
from traitlets.config.loader import ConfigFileNotFound, JSONFileConfigLoader, PyFileConfigLoader

from grader.errors import GraderError
from grader.notebooks.cells import exercise_of_grade

CONFIG_NAME = "nbgrader_config"
DRIVER_HINT = {"postgresql": "pip install 'rl-llm-m4-grader[postgres]' (psycopg 3)"}


def masked_url(url: str) -> str:
    """``url`` as it may be shown: any password replaced by ``***``."""
    try:
        return make_url(url).render_as_string(hide_password=True)
    except (ArgumentError, ValueError):
        return "<not a database URL>"


@dataclass(frozen=True)
class GradebookTarget:
    """Which gradebook: nbgrader's database URL and the course id its records carry."""

    url: str
    course_id: str

    @property
    def shown(self) -> str:
        return masked_url(self.url)

    @contextmanager
    def open(self) -> Iterator[Gradebook]:
        """nbgrader's :class:`Gradebook` on this database; a clear :class:`GraderError` when it cannot open."""
        try:
            with _tools_on_path():
                gb = Gradebook(self.url, self.course_id)
        except (NoSuchModuleError, ModuleNotFoundError) as exc:
            dialect = self.url.split(":", 1)[0].split("+", 1)[0]
            hint = DRIVER_HINT.get(dialect, "install the database driver SQLAlchemy names")
            raise GraderError(f"cannot open the gradebook {self.shown}: no driver for it ({exc}); {hint}") from None
        except (SQLAlchemyError, InvalidEntry) as exc:
            raise GraderError(f"cannot open the gradebook {self.shown}: {self._reason(exc)}") from None
        try:
            yield gb
        finally:
            gb.close()
            gb.engine.dispose()  # no pooled connection outlives its use (a server counts them)

    def _reason(self, exc: Exception) -> str:
        text = str(getattr(exc, "orig", None) or exc).strip().splitlines()
        reason = text[0] if text else type(exc).__name__
        password = make_url(self.url).password
        return reason.replace(password, "***") if password else reason


@contextmanager
def _tools_on_path() -> Iterator[None]:
    """This environment's bin/ first on PATH: nbgrader runs ``alembic`` from PATH when it creates a
    gradebook, and the environment need not be activated."""
    before = os.environ.get("PATH")
    os.environ["PATH"] = os.pathsep.join([str(Path(sys.executable).parent), before or ""])
    try:
        yield
    finally:
        if before is None:
            del os.environ["PATH"]
        else:
            os.environ["PATH"] = before


def load_nbgrader_config(course_dir: Path) -> Config:
    """nbgrader's configuration for ``course_dir``, merged as nbgrader merges it: Jupyter's
    configuration folders first, then the course directory's own ``nbgrader_config.py``."""
    config = Config()
    for folder in [*reversed(jupyter_config_path()), str(course_dir)]:
        for loader in (PyFileConfigLoader, JSONFileConfigLoader):
            suffix = ".py" if loader is PyFileConfigLoader else ".json"
            try:
                config.merge(loader(CONFIG_NAME + suffix, path=folder).load_config())
            except ConfigFileNotFound:
                continue
            except Exception as exc:  # the instructor's own file: say which and why
                raise GraderError(
                    f"cannot read {Path(folder) / (CONFIG_NAME + suffix)}: {type(exc).__name__}: {exc}"
                ) from None
    return config


def course_gradebook(course_dir: Path, db_url: str | None = None) -> GradebookTarget:
    """The gradebook nbgrader uses in ``course_dir`` (``db_url`` overrides the configured one, like
    nbgrader's ``--db``)."""
    config = load_nbgrader_config(course_dir)
    coursedir = CourseDirectory(config=config, root=str(Path(course_dir).resolve()))
    if db_url:
        return GradebookTarget(url=checked_url(db_url, "the --db value"), course_id=coursedir.course_id)
    where = f"CourseDirectory.db_url of nbgrader's configuration ({course_dir}/{CONFIG_NAME}.py)"
    return GradebookTarget(url=checked_url(coursedir.db_url, where), course_id=coursedir.course_id)


def checked_url(url: str, where: str) -> str:
    """``url`` if SQLAlchemy can read it; else a :class:`GraderError` naming ``where`` it came from."""
    if masked_url(url) == "<not a database URL>":
        raise GraderError(
            f"{where} is not a database URL (e.g. sqlite:////path/gradebook.db or postgresql://user@host/database)"
        )
    return url


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


def gradebook_scores(target: GradebookTarget, assignment: str) -> dict[str, dict[str, float | None]]:
    """student -> {exercise: auto score} for every submission of ``assignment`` in the gradebook."""
    with target.open() as gb:
        return _scores(gb, assignment)


def _scores(gb: Gradebook, assignment: str) -> dict[str, dict[str, float | None]]:
    out: dict[str, dict[str, float | None]] = {}
    for student, _, grade in _grades(gb, assignment):
        grades = out.setdefault(student, {})
        function = exercise_of_grade(grade.name)
        if function is not None:
            grades[function] = grade.auto_score
    return out


def verify_state(target: GradebookTarget, assignment: str, before: dict[tuple, tuple]) -> tuple:
    """After recording ``assignment``, in one gradebook session (each opening costs one, and each walk
    of the rows loads them again): the manual scores put back (:func:`restore_manual`), the automatic
    scores (:func:`gradebook_scores`), the late submissions (:func:`late_state`) and the final scores
    (:func:`final_scores`)."""
    with target.open() as gb:
        restored = _restore_manual(gb, assignment, before)
        return restored, _scores(gb, assignment), _late(gb, assignment), _final(gb, assignment)


def manual_state(target: GradebookTarget, assignment: str) -> dict[tuple, tuple]:
    """(student, notebook, cell) -> (manual score, extra credit) of every grade of ``assignment``.

    Only people set these; a change while student code was being graded is tampering.
    """
    with target.open() as gb:
        return {
            (student, notebook, grade.name): (grade.manual_score, grade.extra_credit)
            for student, notebook, grade in _grades(gb, assignment)
        }


def restore_manual(target: GradebookTarget, assignment: str, before: dict[tuple, tuple]) -> list[str]:
    """Put back manual scores and extra credit that changed since ``before``; say what was restored."""
    with target.open() as gb:
        return _restore_manual(gb, assignment, before)


def _restore_manual(gb: Gradebook, assignment: str, before: dict[tuple, tuple]) -> list[str]:
    restored = []
    for student, notebook, grade in _grades(gb, assignment):
        manual, extra = before.get((student, notebook, grade.name), (None, None))
        if (grade.manual_score, grade.extra_credit) != (manual, extra):
            restored.append(
                f"{student}/{grade.name}: manual score {grade.manual_score}, extra credit "
                f"{grade.extra_credit} -> {manual}, {extra}"
            )
            grade.manual_score, grade.extra_credit = manual, extra
            # nbgrader's rule (SaveAutoGrades): a manual score, or no automatic one, needs a look
            grade.needs_manual_grade = manual is not None or grade.auto_score is None
    gb.db.commit()
    return restored


def built_notebook(gb: Gradebook, target: GradebookTarget, assignment: str, notebook: str):
    """The gradebook's row of an assignment's notebook (what `grader build` recorded there).

    Raises
    ------
    GraderError
        When the gradebook has none: the assignment was built with another gradebook, or not at all.
    """
    try:
        return gb.find_notebook(notebook, assignment)
    except MissingEntry:
        raise GraderError(
            f"the gradebook {target.shown} has no notebook {notebook} of assignment {assignment}: "
            "`grader build` records each notebook (nbgrader generate_assignment) in the gradebook "
            "nbgrader_config.py names; build again with this gradebook"
        ) from None


def points_changed(notebook, points: dict[str, float]) -> list[str]:
    """Exercises whose maximum in the gradebook (what `grader build` recorded from the source notebook)
    differs from ``points`` (course.yaml), as ``"name: 2 -> 3"``.

    nbgrader caps a recorded score at the gradebook's maximum, so grading before a rebuild would
    record grades that are not the trusted ones.
    """
    changed = []
    for cell in notebook.grade_cells:
        function = exercise_of_grade(cell.name) or cell.name  # a written answer is known by its grade id
        if function in points and abs(float(cell.max_score) - float(points[function])) > 1e-9:
            changed.append(f"{function}: {float(cell.max_score):g} -> {float(points[function]):g}")
    return changed


def set_due_dates(gb: Gradebook, due: dict[str, object]) -> None:
    """Each assignment's due date in the gradebook (UTC), as course.yaml gives it: nbgrader
    computes how late a submission is from it. An assignment without a due date in course.yaml
    keeps the gradebook's (one set through nbgrader itself is the instructor's, never erased)."""
    for assignment, when in due.items():
        if when is None:
            continue
        try:
            row = gb.find_assignment(assignment)
        except MissingEntry:
            continue  # not built in this gradebook
        if row.duedate != when:
            row.duedate = when
    gb.db.commit()


def final_scores(target: GradebookTarget, assignment: str) -> dict[str, tuple[float, list[str]]]:
    """student -> (the gradebook's score of their submission, what people graded by hand): the score
    formgrader and ``nbgrader export`` show, manual grades included (before a late penalty); the
    second part names each exercise with a manual score or extra credit."""
    with target.open() as gb:
        return _final(gb, assignment)


def _final(gb: Gradebook, assignment: str) -> dict[str, tuple[float, list[str]]]:
    out: dict[str, tuple[float, list[str]]] = {}
    try:
        submissions = gb.find_assignment(assignment).submissions
    except MissingEntry:
        return out
    for submission in submissions:
        manual = [
            exercise_of_grade(grade.name) or grade.name
            for nb in submission.notebooks
            for grade in nb.grades
            if grade.manual_score is not None or grade.extra_credit
        ]
        out[submission.student.id] = (float(submission.score), manual)
    return out


def late_state(target: GradebookTarget, assignment: str) -> dict[str, tuple[float, float]]:
    """student -> (seconds late, late penalty in points) of every late submission of ``assignment``."""
    with target.open() as gb:
        return _late(gb, assignment)


def _late(gb: Gradebook, assignment: str) -> dict[str, tuple[float, float]]:
    out = {}
    try:
        submissions = gb.find_assignment(assignment).submissions
    except MissingEntry:
        return out
    for submission in submissions:
        late = submission.total_seconds_late
        if late > 0:
            out[submission.student.id] = (late, float(submission.late_submission_penalty or 0.0))
    return out


def enrol(target: GradebookTarget, students: list[str], names: dict[str, tuple[str, str, str]] | None = None) -> None:
    """Add every student to the gradebook, once; ``names`` (student -> first name, last name, LMS id, as
    an LMS download wrote them) fills what the gradebook does not know yet, never what a roster set.

    Two ``grader autograde`` runs at once (two assignments, one database) would
    otherwise both try to add a new student in nbgrader's autograde, and the second
    insert would fail that student's submission. Whoever loses the race here finds the
    student the other one added.
    """
    names = names or {}
    with target.open() as gb:
        for student in students:
            try:
                row = gb.update_or_create_student(student)
            except InvalidEntry:  # added by a concurrent run since we looked
                row = gb.find_student(student)
            if student in names:
                first, last, lms_id = names[student]
                if not (row.first_name or row.last_name):
                    row.first_name, row.last_name = first or None, last or None
                if not row.lms_user_id and lms_id:
                    row.lms_user_id = lms_id
        gb.db.commit()


def gradebook_students(target: GradebookTarget) -> list[tuple[str, str, str, str, str]]:
    """(id, first name, last name, e-mail, LMS id) of every student of the gradebook."""
    with target.open() as gb:
        return [
            (s.id, s.first_name or "", s.last_name or "", s.email or "", s.lms_user_id or "")
            for s in sorted(gb.students, key=lambda s: s.id)
        ]
