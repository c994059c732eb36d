"""nbgrader preprocessors of the autograde and feedback steps.

``TrustedGrade`` replaces nbgrader's ``Execute`` in ``Autograde.autograde_preprocessors``:
no kernel starts and nothing of the submission runs in nbgrader's process. Each
autograded cell receives the trusted grade as its output (:func:`fill_outputs`): a text
report and then a plain number, the cell's score, which nbgrader's own ``SaveAutoGrades``
reads as partial credit. (A numpy scalar would print as ``np.float64(2.5)``, which nbgrader
cannot parse and silently turns into full credit; a plain float cannot go wrong.)
It serves plain ``nbgrader autograde`` (formgrader's button); ``grader autograde`` runs the
same steps itself (:mod:`grader.autograde.recorder`).

``HideHiddenTests`` runs in ``GenerateFeedback``: the feedback shows the visible
tests, the scores and the messages, and cuts the hidden tests out of every cell; an
autograded cell's report wraps, and the bare score nbgrader reads (``Out[n]: 0.64``) is
left out. ``WrapFeedback`` makes code and outputs wrap instead of scrolling sideways.

``OverwriteReleasedCells`` replaces nbgrader's ``OverwriteCells`` in
``Autograde.sanitize_preprocessors``: the same, without its tampering warning for a locked cell
that is exactly as released.

``SanitizeStudentHTML`` runs in both: the autograded notebook (what formgrader shows)
and the feedback hold no HTML, output or metadata of a student's that could run script
(:mod:`grader.autograde.sanitize`).
"""

from __future__ import annotations

import functools
import html
import shutil
from dataclasses import dataclass
from pathlib import Path

import nbformat
from nbgrader import utils
from nbgrader.api import MissingEntry
from nbgrader.preprocessors import ClearHiddenTests, NbGraderPreprocessor, OverwriteCells
from traitlets import Enum, List, Unicode

from grader.autograde.sanitize import sanitize_notebook
from grader.autograde.trusted import (
    built_info,
    extract,
    fingerprint_of,
    grade_extractions,
    results_store,
    submission_dir,
)
from grader.core.course import Assignment, Course, load_course
from grader.core.fingerprint import run_fingerprint
from grader.engine.dispatch import GradingOptions
from grader.engine.record import GradeRecord
from grader.feedback import function_report
from grader.notebooks.cells import HIDDEN_BEGIN, HIDDEN_END, exercise_of_grade
from grader.notebooks.coursedir import BuiltAssignment
from grader.notebooks.extract import GENERAL, check_notebook, linked_folder, read_notebook
from grader.notebooks.segments import ModuleParts, assignment_modules
from grader.untrusted import refused_entries, shown


def exercise_of(cell) -> str | None:
    """The exercise an autograded cell grades (its grade id is ``test_<name>``)."""
    meta = cell.get("metadata", {}).get("nbgrader", {})
    if meta.get("grade") and cell.get("cell_type") == "code":
        return exercise_of_grade(str(meta.get("grade_id", "")))
    return None


def fill_outputs(nb: nbformat.NotebookNode, record: GradeRecord) -> nbformat.NotebookNode:
    """Give every autograded cell its report and its score; clear every other output."""
    points = record.scores()
    count = 0
    for cell in nb.cells:
        if cell.cell_type != "code":
            continue
        cell.outputs = []
        cell.execution_count = None
        if not utils.is_grade(cell):
            continue
        count += 1
        cell.execution_count = count
        function = exercise_of(cell)
        if function in points:
            score, most = points[function]
            text = function_report(record, function)
        else:  # a grade cell the course does not know gets nothing for free
            score, most = 0.0, float(cell.metadata["nbgrader"].get("points", 0))
            text = "this cell is not part of the course's grading\n"
        score = min(max(float(score), 0.0), float(cell.metadata["nbgrader"].get("points", most)))
        # Made of the grader's own text: no schema check (nbformat's costs a millisecond an output).
        cell.outputs = [
            nbformat.from_dict({"output_type": "stream", "name": "stdout", "text": text}),
            nbformat.from_dict(
                {
                    "output_type": "execute_result",
                    "data": {"text/plain": repr(float(score))},
                    "metadata": {},
                    "execution_count": count,
                }
            ),
        ]
    return nb


def placeholder_notebook(
    course_dir: Path, assignment: str, notebook: str, student: str, record: GradeRecord
) -> nbformat.NotebookNode:
    """What autograded/ holds for a submission whose notebook is not recorded as it is (quarantined,
    or nbgrader's preprocessors failed on it): its checked cells, or the release's, with a note on
    top. Nothing else of the submission is read, and nothing through a link."""
    course_dir = Path(course_dir)
    release = nbformat.read(course_dir / "release" / assignment / notebook, as_version=4)
    folder = course_dir / "submitted" / student / assignment
    problem = submitted = None
    if not linked_folder(folder):
        data, problem = read_notebook(folder / notebook)
        submitted = check_notebook(data)[0] if data is not None else None
    base = submitted if submitted is not None else release
    present = {exercise_of(cell) for cell in base.cells}
    for cell in release.cells:  # bring back any autograded cell the student deleted
        function = exercise_of(cell)
        if function and function not in present:
            base.cells.append(cell)
    why = (
        " ".join(record.notes.get(GENERAL, []) or ([problem] if problem else []))
        or "nbgrader could not process this notebook"
    )
    note = nbformat.v4.new_markdown_cell(
        f"**Grading note.** {why} The grades below come from the course grader; exercises it could not find score zero."
    )
    note.id = "grading-note"
    base.cells.insert(0, note)
    return base


@dataclass(frozen=True)
class GradingContext:
    """What grading any notebook of one assignment needs, the same for the whole class."""

    course: Course
    assignment: Assignment
    info: BuiltAssignment
    modules: dict[str, ModuleParts]
    course_hash: str  # run_fingerprint for the assignment's functions, as the engine stores it
    labs: tuple[str, ...]


@functools.lru_cache(maxsize=8)
def grading_context(course_root: str, course_dir: str, assignment_id: str) -> GradingContext:
    """Load the course, the build manifest, the assignment's modules and the course's fingerprint
    once per nbgrader process: nbgrader calls :class:`TrustedGrade` once per notebook."""
    course = load_course(course_root or None, check_files=False)
    assignment = course.assignment(assignment_id)
    return GradingContext(
        course,
        assignment,
        built_info(Path(course_dir), assignment),
        assignment_modules(course, assignment),
        run_fingerprint(course, [e.function for e in assignment.exercises]),
        tuple(e.function for e in assignment.exercises if e.kind == "lab"),
    )


class TrustedGrade(NbGraderPreprocessor):
    """Fill autograded cells from the trusted grader instead of executing the notebook."""

    course_root = Unicode("", help="Directory holding course.yaml (written by `grader build`).").tag(config=True)
    sandbox = Enum(
        ["auto", "require", "off"],
        default_value="auto",
        help="How a notebook without a current trusted record is graded: in the bubblewrap sandbox "
        "when it works (auto), only in it (require), or with resource limits only (off).",
    ).tag(config=True)
    results_dir = Unicode(
        "",
        help="Where the trusted records are, <results_dir>/<assignment>/ (default: "
        "grader-results/ in the course directory; set it to the --out DIR of "
        "`grader autograde` to reuse those records).",
    ).tag(config=True)

    def _course_dir(self) -> Path:
        # nbgrader's converter knows the course directory; the gradebook URL need not be a file in it.
        converter = getattr(self.parent, "parent", None)
        coursedir = getattr(converter, "coursedir", None)
        if coursedir is None:
            raise ValueError(
                "TrustedGrade runs inside nbgrader's autograde converter, which names the course directory"
            )
        return Path(coursedir.root)

    def preprocess(self, nb, resources):
        student = resources["nbgrader"]["student"]
        assignment_id = resources["nbgrader"]["assignment"]
        course_dir = self._course_dir()
        ctx = grading_context(self.course_root, str(course_dir), assignment_id)
        course, assignment = ctx.course, ctx.assignment
        # The notebook nbgrader hands us is the sanitized submission: locked cells restored,
        # the student's solution cells as submitted. Extract from it, so what is recorded is
        # exactly what this notebook holds; unless nbgrader read it through a link (plain
        # `nbgrader autograde` follows them): then from the folder, which refuses links.
        folder = submission_dir(course_dir, student, assignment_id)
        linked = linked_folder(folder)
        refused = [] if linked else refused_entries(folder)
        trusted = not (linked or refused)
        extraction = extract(
            course, course_dir, assignment, ctx.info, student, notebooks=[nb] if trusted else None, modules=ctx.modules
        )
        out = Path(self.results_dir) if self.results_dir else None
        record = results_store(course_dir, assignment_id, out).load(student)
        if (
            record is not None
            and extraction.readable
            and record.is_current(fingerprint_of(student, extraction), ctx.course_hash)
        ):
            self.log.info("Using the trusted grade of %s/%s", student, assignment_id)
            record = record.with_extraction(assignment_id, extraction, ctx.labs)
        else:
            self.log.info("Grading %s/%s with the trusted grader", student, assignment_id)
            record = grade_extractions(
                course, course_dir, assignment, {student: extraction}, GradingOptions(sandbox=self.sandbox, out=out)
            )[student]
        if not trusted:
            # nbgrader read this notebook, and copied the submission's other files, through links:
            # none of it may reach autograded/ (nor, from there, the feedback a student is given).
            self._drop_copies_of_untrusted(folder, refused, student, assignment_id)
            nb = placeholder_notebook(
                course_dir, assignment_id, f"{resources['nbgrader']['notebook']}.ipynb", student, record
            )
        return fill_outputs(nb, record), resources

    def _drop_copies_of_untrusted(self, folder: Path, refused: list, student: str, assignment_id: str) -> None:
        """Remove from autograded/ what nbgrader's converter copied there through a link (or from a
        linked folder: everything but the course's own files, which it copied afterwards)."""
        coursedir = self.parent.parent.coursedir
        dest = Path(coursedir.format_path(coursedir.autograded_directory, student, assignment_id))
        if not dest.is_dir():
            return
        if not refused:  # the folder itself is a link: all nbgrader copied came through it
            source = Path(coursedir.format_path(coursedir.source_directory, ".", assignment_id))
            doomed = [p for p in dest.rglob("*") if not p.is_dir() and not (source / p.relative_to(dest)).is_file()]
        else:
            doomed = [dest / path.relative_to(folder) for path, _ in refused if path != folder]
        for path in doomed:
            if path.is_dir() and not path.is_symlink():
                shutil.rmtree(path, ignore_errors=True)
            elif path.exists() or path.is_symlink():
                path.unlink()
            else:
                continue
            self.log.warning(
                "Left out of autograded/: %s (a link or special file in the submission)",
                shown(str(path.relative_to(dest))),
            )


def strip_hidden_tests(source: str) -> str:
    out, inside = [], False
    for line in source.splitlines():
        if HIDDEN_BEGIN in line:
            inside = True
            out.append("# (the hidden tests are not shown; the output below gives their verdict)")
        elif HIDDEN_END in line:
            inside = False
        elif not inside:
            out.append(line)
    return "\n".join(out)


# The report of an autograded cell in feedback: its lines wrap (a stream output is a <pre> that does
# not, cut by the page's 1170 px container and given a scrollbar). The text is escaped: it quotes
# the student's own exception messages.
REPORT_HTML = (
    '<div class="grader-report" style="white-space: pre-wrap; overflow-wrap: anywhere; '
    'font-family: monospace; font-size: 13px; line-height: 1.4; max-width: 100%;">{}</div>'
)


def readable_report(outputs: list) -> list:
    """An autograded cell's outputs as feedback shows them: the report as wrapping text, and no
    ``Out[n]: 0.642857`` (that number is the score nbgrader records; the feedback's header shows
    the scores)."""
    text = "".join(o.get("text", "") for o in outputs if o.get("output_type") == "stream")
    if not text:
        return [o for o in outputs if o.get("output_type") != "execute_result"]
    return [
        nbformat.from_dict(
            {
                "output_type": "display_data",
                "metadata": {},
                "data": {"text/html": REPORT_HTML.format(html.escape(text, quote=False)), "text/plain": text},
            }
        )
    ]


class FeedbackPreprocessor(NbGraderPreprocessor):
    """A step of ``GenerateFeedback``: ``display_data_priority`` is configurable, as on nbgrader's own
    GetGrades. (NbGraderPreprocessor declares it without ``config=True``, so the HTML exporter's
    ``NbConvertBase.display_data_priority`` made traitlets warn "not recognized" on every run.)"""

    display_data_priority = List(NbGraderPreprocessor.display_data_priority.default_value).tag(config=True)


class OverwriteReleasedCells(OverwriteCells):
    """nbgrader's OverwriteCells, without a false tampering warning.

    A locked cell with hidden tests reaches students without them (nbgrader's ClearHiddenTests at
    release), while the gradebook's checksum is the source's, with them: plain ``nbgrader
    autograde`` (formgrader's button) warned "Attribute 'checksum' for cell ... has changed!" for
    every such cell of every honest student. A cell exactly as released gets its source back
    before nbgrader's check; any other change is still reported and undone by nbgrader.
    """

    def preprocess_cell(self, cell, resources, cell_index):
        meta = cell.get("metadata", {}).get("nbgrader", {})
        grade_id = meta.get("grade_id")
        if isinstance(grade_id, str) and meta.get("locked") and isinstance(cell.get("source"), str):
            try:
                source = self.gradebook.find_source_cell(grade_id, self.notebook_id, self.assignment_id)
            except MissingEntry:
                source = None
            if source is not None and source.locked and cell.source == released_source(source.source):
                cell.source = source.source
        return super().preprocess_cell(cell, resources, cell_index)


@functools.lru_cache(maxsize=4096)
def released_source(source: str) -> str:
    """A cell's source as nbgrader releases it: hidden test regions removed (nbgrader's own ClearHiddenTests).

    Kept per source: every student's notebook asks it of the same locked cells, and a new cell is
    validated against nbformat's schema (a third of a millisecond, 2,700 times for an assignment).
    """
    cell = nbformat.v4.new_code_cell(source)
    ClearHiddenTests()._remove_hidden_test_region(cell)
    return cell.source


class HideHiddenTests(FeedbackPreprocessor):
    """Feedback shows scores and readable messages, never the hidden tests."""

    def preprocess_cell(self, cell, resources, index):
        if cell.cell_type == "code":
            cell.source = strip_hidden_tests(cell.source)
            grade_id = cell.get("metadata", {}).get("nbgrader", {}).get("grade_id")
            if grade_id == "check_helper":
                cell.source = "# The course's helper for the visible checks (see the assignment notebook)."
            # Only the course's own report may appear; never a traceback.
            cell.outputs = [o for o in cell.get("outputs", []) if o.get("output_type") != "error"]
            if utils.is_grade(cell):
                cell.outputs = readable_report(cell.outputs)
        return cell, resources


class WrapFeedback(FeedbackPreprocessor):
    """Feedback lines wrap instead of scrolling sideways: code (the visible checks, the student's cells)
    and outputs. Runs after CSSHTMLHeaderPreprocessor, which replaces the page's CSS."""

    CSS = (
        ".input_area pre, .output_area pre, div.highlight pre { white-space: pre-wrap; overflow-wrap: anywhere; }\n"
        ".grader-report { white-space: pre-wrap; overflow-wrap: anywhere; }"
    )

    def preprocess(self, nb, resources):
        inlining = resources.setdefault("inlining", {})
        inlining["css"] = [*inlining.get("css", []), self.CSS]
        return nb, resources


class SanitizeStudentHTML(FeedbackPreprocessor):
    """Nothing a student wrote can run script where the notebook is rendered (formgrader, feedback)."""

    def preprocess(self, nb, resources):
        return sanitize_notebook(nb), resources
