"""The record step of ``grader autograde``: what ``nbgrader autograde`` writes, written in this process.

For each submission, nbgrader's autograde converter (``nbgrader/converters/autograde.py``)
copies the submission's other files, then the course's files, into
``autograded/<student>/<assignment>/``; creates or updates the submission in the gradebook
(dated by its ``timestamp.txt``); runs ``Autograde.sanitize_preprocessors`` (ClearOutput,
DeduplicateIds, OverwriteKernelspec, OverwriteCells, CheckCellMetadata) and then
``Autograde.autograde_preprocessors`` (here TrustedGrade, SanitizeStudentHTML, ...,
SaveAutoGrades, AssignLatePenalties, CheckCellMetadata) on the notebook; writes it and sets
the files' permissions.

:class:`Recorder` does exactly that with nbgrader's own preprocessors and settings, read
from the course's nbgrader configuration, but for a whole class in one process and one
gradebook session. nbgrader starts an application per run, opens the database afresh in
five places per submission and in four preprocessors per notebook, commits after every
cell and validates the notebook after every preprocessor: a quarter of a second per
notebook. Here the preprocessors that look things up in the gradebook ask :class:`_Rows`,
which answers from rows loaded once per assignment and once per submission; TrustedGrade's
step is the trusted record the grade step has just written; one commit per submission.
``tests/autograde/test_record_equivalence.py`` checks, field by field, that the files and gradebook
rows are those real ``nbgrader autograde`` writes for the same submissions.

Only the course grader writes here: nothing of a submission runs, and a notebook reaches
the preprocessors only after :func:`grader.notebooks.extract.check_notebook` found nothing
wrong with it (others are quarantined: :meth:`Recorder.placeholder`).
"""

from __future__ import annotations

import json
import logging
import shutil
from pathlib import Path

import nbformat
from nbconvert.preprocessors import Preprocessor
from nbformat.v4.nbjson import BytesEncoder
from nbformat.v4.rwbase import split_lines, strip_transient
from nbgrader import utils
from nbgrader.api import MissingEntry
from nbgrader.converters import Autograde, BaseConverter
from nbgrader.coursedir import CourseDirectory
from nbgrader.nbgraderformat import MetadataValidator
from nbgrader.preprocessors import (
    AssignLatePenalties,
    CheckCellMetadata,
    Execute,
    OverwriteCells,
    OverwriteKernelspec,
    SaveAutoGrades,
)
from traitlets.utils.importstring import import_item

from grader.autograde.preprocessors import SanitizeStudentHTML, TrustedGrade, fill_outputs, placeholder_notebook
from grader.autograde.sanitize import sanitize_notebook
from grader.engine.record import GradeRecord
from grader.errors import GraderError
from grader.notebooks.cells import exercise_of_grade
from grader.notebooks.extract import linked_folder
from grader.notebooks.gradebook import GradebookTarget, built_notebook, load_nbgrader_config
from grader.untrusted import UntrustedFile, read_regular, shown

# nbgrader's preprocessors log every change a student made to a locked cell, naming the cell:
# nothing of that is shown (the verify step compares the gradebook with the trusted records).
QUIET = logging.getLogger("grader.autograde.recorder.nbgrader")
QUIET.addHandler(logging.NullHandler())
QUIET.propagate = False
MAX_TIMESTAMP_BYTES = 1024


def remove(path: Path) -> None:
    """Remove a file, link or folder if there is one (never following a link)."""
    if path.is_symlink() or path.is_file():
        path.unlink()
    elif path.is_dir():
        shutil.rmtree(path)


class _Rows:
    """The gradebook as nbgrader's autograde preprocessors use it (``self.gradebook``): the look-ups
    they make, answered from the rows of one session, and a ``db`` whose ``commit`` waits for the
    recorder's one commit per submission."""

    def __init__(self, gb, assignment: str, notebook):
        self.gb = gb
        self.assignment = assignment
        self.notebook = notebook
        self.source_cells = {cell.name: cell for cell in self.notebook.source_cells}
        self.graded_cells = {cell.name: cell for cell in [*self.notebook.grade_cells, *self.notebook.task_cells]}
        self.db = self
        self.submission = self.submitted = None
        self.grades: dict = {}
        self.comments: dict = {}

    def commit(self) -> None:
        """nbgrader commits after every cell; the recorder commits the submission once."""

    def load(self, student: str, timestamp) -> None:
        """The submission of ``student`` (created with its grades and comments if new), as nbgrader's
        autograde creates or updates it."""
        # nbgrader's add_submission builds the submission's rows before adding them to the session, and
        # reading the assignment's notebooks in between autoflushed half-made rows: SQLAlchemy warned
        # twice per new submission (SAWarning "not in session, add operation ... will not proceed").
        # Its own commit writes them all.
        with self.gb.db.no_autoflush:
            self.submission = self.gb.update_or_create_submission(
                self.assignment, student, **({"timestamp": timestamp} if timestamp else {})
            )
        found = [nb for nb in self.submission.notebooks if nb.notebook is self.notebook]
        if not found:  # nbgrader's find_submission_notebook says the same
            raise MissingEntry(f"No such submitted notebook: {self.notebook.name}")
        self.submitted = found[0]
        self.grades = {grade.name: grade for grade in self.submitted.grades}
        self.comments = {comment.name: comment for comment in self.submitted.comments}

    @staticmethod
    def _get(rows: dict, name: str, what: str):
        if name not in rows:
            raise MissingEntry(f"No such {what}: {name}")
        return rows[name]

    def find_notebook(self, name, assignment):
        return self.notebook

    def find_source_cell(self, name, notebook, assignment):
        return self._get(self.source_cells, name, "source cell")

    def find_graded_cell(self, name, notebook, assignment):
        return self._get(self.graded_cells, name, "graded cell")

    def find_grade(self, grade_cell, notebook, assignment, student):
        return self._get(self.grades, grade_cell, "grade")

    def find_comment(self, solution_cell, notebook, assignment, student):
        return self._get(self.comments, solution_cell, "comment")

    def find_submission(self, assignment, student):
        return self.submission

    def find_submission_notebook(self, notebook, assignment, student):
        # Its score sums the grades just set: read it again from the database when asked for.
        self.gb.db.flush()
        self.gb.db.expire(self.submitted, ["score"])
        return self.submitted


class _Validator(MetadataValidator):
    """nbgrader's check of the cells' nbgrader metadata (CheckCellMetadata), which passes a cell once
    per metadata: its schema check costs 2 ms a cell, and the locked cells are alike in every notebook."""

    def __init__(self):
        super().__init__()
        self.passed: set[tuple[str, str]] = set()

    def validate_cell(self, cell) -> None:
        # What the check reads of a cell: its type and its nbgrader metadata.
        key = (cell.get("cell_type"), json.dumps(cell.get("metadata", {}).get("nbgrader"), sort_keys=True))
        if key not in self.passed:
            super().validate_cell(cell)
            self.passed.add(key)


def notebook_json(nb) -> str:
    """Exactly what ``nbformat.v4.writes`` writes (the autograded folders are byte for byte nbgrader's),
    without its copy of the notebook first: ``nb`` is this recording's own, and is changed."""
    data = strip_transient(split_lines(nb))
    return json.dumps(data, cls=BytesEncoder, indent=1, sort_keys=True, separators=(",", ": "), ensure_ascii=False)


def notebook_node(data: dict) -> nbformat.NotebookNode:
    """Raw notebook JSON as ``nbformat.reads(text, as_version=4)`` makes it when nbgrader reads a
    submission (without the schema validation, which only logs)."""
    major, minor = nbformat.reader.get_version(data)
    if major not in nbformat.versions:
        raise nbformat.reader.NBFormatError(f"unsupported nbformat version {major}")
    return nbformat.convert(nbformat.versions[major].to_notebook_json(data, minor=minor), 4)


def _steps(names: list) -> list[type]:
    return [import_item(name) if isinstance(name, str) else name for name in names]


class Recorder:
    """nbgrader's autograde of one assignment, submission by submission, in one gradebook session.

    Use as a context manager; :meth:`record` a notebook nbgrader would read, :meth:`placeholder`
    for a quarantined submission or one whose notebook could not be recorded.
    """

    def __init__(self, course_dir: Path, target: GradebookTarget, assignment: str, notebook: str):
        self.course_dir = Path(course_dir)
        self.target = target
        self.assignment = assignment
        self.notebook = notebook
        self.notebook_id = Path(notebook).stem
        config = load_nbgrader_config(self.course_dir)
        coursedir = CourseDirectory(config=config, root=str(self.course_dir))
        coursedir.db_url, coursedir.assignment_id = target.url, assignment
        # nbgrader's converter holds the settings: permissions, files kept from the submission,
        # the two lists of preprocessors; its own methods copy the submission's files and set modes.
        self.converter = Autograde(coursedir=coursedir, config=config, log=QUIET)
        self.passes = [
            [step(config=config, log=QUIET) for step in _steps(names)]
            for names in (self.converter.sanitize_preprocessors, self.converter.autograde_preprocessors)
        ]
        steps = [step for steps in self.passes for step in steps]
        if any(isinstance(step, Execute) for step in steps) or not any(isinstance(s, TrustedGrade) for s in steps):
            raise GraderError(
                "nbgrader_config.py does not replace nbgrader's Execute with TrustedGrade in "
                "Autograde.autograde_preprocessors (it would run students' notebooks in a kernel): "
                "run `grader build` again"
            )
        self.sanitizes = any(isinstance(step, SanitizeStudentHTML) and step.enabled for step in steps)
        self.validator = _Validator()
        source = self.course_dir / "source" / assignment
        kept = {source / name for name in self.converter.exclude_overwriting.get(assignment, [])}
        self.course_files = sorted(
            set(map(Path, utils.find_all_files(str(source), coursedir.ignore + ["*.ipynb"]))) - kept
        )
        self.source = source
        self.warnings: list[str] = []
        self._open = None
        self.gb = self.rows = None

    def __enter__(self) -> "Recorder":
        self._open = self.target.open()
        self.gb = self._open.__enter__()
        # The rows loaded once (the assignment's cells) stay loaded across the commits.
        self.gb.db().expire_on_commit = False
        try:
            self.rows = _Rows(
                self.gb, self.assignment, built_notebook(self.gb, self.target, self.assignment, self.notebook_id)
            )
        except GraderError:
            self._open.__exit__(None, None, None)
            raise
        return self

    def __exit__(self, *exc) -> None:
        self._open.__exit__(*exc)

    def destination(self, student: str) -> Path:
        return self.course_dir / "autograded" / student / self.assignment

    # -- one submission ----------------------------------------------------------------------
    def record(self, student: str, nb: nbformat.NotebookNode, record: GradeRecord) -> Path:
        """Record ``nb`` (the student's notebook, as nbgrader would read it) with the grades of ``record``.

        Raises whatever nbgrader's preprocessors raise on this notebook; nothing of it is then
        left in autograded/ or the gradebook.
        """

        def convert(nb):
            resources = self._resources(student)
            for steps in self.passes:
                nb, resources = self._run(steps, nb, resources, record)
            return nb

        return self._write(student, nb, convert, copy_submission=True)

    def placeholder(self, student: str, record: GradeRecord) -> Path:
        """An autograded notebook and the trusted grades for a submission whose notebook is not
        recorded as it is (quarantined, or nbgrader's preprocessors failed on it): its checked
        cells, or the release, with a note on top. Nothing else of the submission is read."""
        base = placeholder_notebook(self.course_dir, self.assignment, self.notebook, student, record)

        def convert(nb):
            # None of nbgrader's steps runs on a placeholder, the sanitiser included: it holds the
            # student's markdown and the names of their files.
            sanitize_notebook(nb)
            fill_outputs(nb, record)
            points = record.scores()
            for grade in self.rows.grades.values():
                function = exercise_of_grade(grade.name)
                if function is None and grade.cell.cell_type == "markdown":  # a written answer, graded by hand
                    # as nbgrader's SaveAutoGrades leaves one
                    grade.auto_score, grade.needs_manual_grade = None, True
                    continue
                grade.auto_score = float(points[function][0]) if function in points else 0.0
                grade.needs_manual_grade = grade.manual_score is not None  # as nbgrader's SaveAutoGrades
            for step in self.passes[1]:
                if isinstance(step, AssignLatePenalties) and step.enabled:
                    self._late_penalty(step, self._resources(student))
            return nb

        return self._write(student, base, convert, copy_submission=False)

    def _resources(self, student: str) -> dict:
        return {
            "unique_key": self.notebook_id,
            "output_files_dir": f"{self.notebook_id}_files",
            "nbgrader": {
                "student": student,
                "assignment": self.assignment,
                "notebook": self.notebook_id,
                "db_url": self.target.url,
            },
        }

    def _write(self, student: str, nb, convert, copy_submission: bool) -> Path:
        """autograded/<student>/<assignment>/ and the submission's rows, as nbgrader's converter makes them:
        ``convert`` does the notebook and its grades. ``copy_submission``: the submission's other files
        too (only from a folder that holds no link, pipe or device: one that is not quarantined)."""
        dest = self.destination(student)
        remove(dest)
        try:
            if copy_submission:
                BaseConverter.init_assignment(self.converter, self.assignment, student)
            for path in self.course_files:  # the course's files win (Autograde.exclude_overwriting aside)
                target = dest / path.relative_to(self.source)
                target.parent.mkdir(parents=True, exist_ok=True)
                remove(target)
                shutil.copy(path, target)
            self.rows.load(student, self._timestamp(student))
            nb = convert(nb)
            if not self.sanitizes:  # every notebook written is sanitised, whatever the configuration says
                sanitize_notebook(nb)
            self.gb.db.commit()
            dest.mkdir(parents=True, exist_ok=True)
            path = dest / self.notebook
            path.write_text(notebook_json(nb) + "\n", encoding="utf-8")
            self.converter.set_permissions(self.assignment, student)
        except BaseException:
            self.gb.db.rollback()
            remove(dest)
            raise
        return path

    def _timestamp(self, student: str):
        """The submission's ``timestamp.txt``, as nbgrader reads it (never through a link)."""
        folder = self.course_dir / "submitted" / student / self.assignment
        if linked_folder(folder) or not (folder / "timestamp.txt").exists():
            return None
        try:
            text = read_regular(folder / "timestamp.txt", MAX_TIMESTAMP_BYTES).decode("utf-8").strip()
            return utils.parse_utc(text) if text else None
        except (UntrustedFile, OSError, UnicodeDecodeError, ValueError, OverflowError) as exc:
            self.warnings.append(
                f"submitted/{student}/{self.assignment}/timestamp.txt is not a time "
                f"({shown(str(exc))}); the submission is recorded without one"
            )
            return None

    # -- nbgrader's preprocessors, the ones that use the gradebook given its rows ------------------
    def _run(self, steps, nb, resources, record: GradeRecord):
        for step in steps:
            if isinstance(step, TrustedGrade):
                if step.enabled:
                    nb = fill_outputs(nb, record)
            elif isinstance(step, (OverwriteKernelspec, OverwriteCells, SaveAutoGrades, AssignLatePenalties)):
                if step.enabled:
                    nb, resources = self._in_session(step, nb, resources)
            elif type(step) is CheckCellMetadata:
                if step.enabled:
                    self.validator.validate_nb(nb)  # what CheckCellMetadata.preprocess runs, faster
            else:
                nb, resources = step(nb, resources)
        return nb, resources

    def _in_session(self, step, nb, resources):
        """``step.preprocess`` without the gradebook it would open: the same cell by cell work, on the rows."""
        meta = resources["nbgrader"]
        step.notebook_id, step.assignment_id, step.student_id = meta["notebook"], meta["assignment"], meta["student"]
        step.db_url, step.gradebook = meta["db_url"], self.rows
        if isinstance(step, OverwriteKernelspec):
            kernelspec = self.rows.notebook.kernelspec
            if kernelspec:
                nb.metadata["kernelspec"] = json.loads(kernelspec)
            return nb, resources
        if isinstance(step, AssignLatePenalties):
            self._late_penalty(step, resources)
            return nb, resources
        nb, resources = Preprocessor.preprocess(step, nb, resources)  # the cells, one by one
        if isinstance(step, OverwriteCells) and step.add_missing_cells:
            nb, resources = step.add_missing_grade_cells(nb, resources)
            nb, resources = step.add_missing_task_cells(nb, resources)
        return nb, resources

    def _late_penalty(self, step: AssignLatePenalties, resources) -> None:
        """AssignLatePenalties.preprocess, with the course's late-submission plugin."""
        meta = resources["nbgrader"]
        step.init_plugin()
        notebook = self.rows.find_submission_notebook(meta["notebook"], meta["assignment"], meta["student"])
        notebook.late_submission_penalty = None
        late = self.rows.submission.total_seconds_late
        if late > 0:
            penalty = step.plugin_inst.late_submission_penalty(meta["student"], notebook.score, late)
            if penalty is not None:
                notebook.late_submission_penalty = step._check_late_penalty(notebook, penalty)
