"""``grader autograde``: grade an nbgrader class with the trusted grader and record it in the gradebook.

An ordered pipeline of named steps (:data:`AUTOGRADE_STEPS`) on a shared
:class:`AutogradeState`: the frozen :class:`AutogradeInputs` of the run, and what the steps
produce (each step's docstring says what it reads and writes):

1. ``collect``  (with ``--zip``) an LMS download into submitted/ (:mod:`grader.autograde.zipcollect`)
2. ``find``     the submissions: submitted/<student>/<assignment>/
3. ``enrol``    every student in the gradebook (safe when another autograde shares the database)
4. ``extract``  each notebook's solution cells into modules shaped like exercises/
5. ``grade``    all of them with the hidden tests, with the engine of ``grader grade-class`` (trusted
                processes here or a Dask cluster's workers, sandboxed; a current record is not regraded)
6. ``record``   what ``nbgrader autograde`` writes (autograded/ and the gradebook), with nbgrader's own
                preprocessors and TrustedGrade's step in this process, in one gradebook session
                (:mod:`grader.autograde.recorder`), for every submission but the quarantined ones
                (links, special files, repaired notebook JSON)
7. ``rescue``   an autograded notebook and grades for the quarantined submissions and for those
                nbgrader's steps refuse
8. ``verify``   the gradebook holds exactly the trusted grades, and no manual score changed

The gradebook is the one nbgrader's configuration names (``CourseDirectory.db_url``), or
``db_url`` when given: SQLite by default, PostgreSQL for a teaching team.

Nothing of a submission runs in a Jupyter kernel or in this process, and no student's
failure stops the class. Who was recorded is read from the notebooks written, and the
gradebook is checked against the trusted records. Plain ``nbgrader autograde``
(formgrader's button) records the same, with TrustedGrade in place of Execute.
"""

from __future__ import annotations

import os
import time
from dataclasses import dataclass, field, replace
from pathlib import Path

from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

from grader.autograde.recorder import Recorder, notebook_node, remove
from grader.autograde.trusted import built_info, extract, grade_extractions, submission_dir
from grader.autograde.zipcollect import Collected, LmsDownload, collect_zip, print_collection
from grader.core.course import Assignment, Course
from grader.display import spreadsheet_cell
from grader.engine import pipes
from grader.engine.dispatch import GradingOptions
from grader.engine.events import RunListener, refused_message, retry_message
from grader.engine.record import GradeRecord
from grader.engine.store import SAFE_ID
from grader.errors import GraderError
from grader.lms import Person, Roster, name_id, read_roster
from grader.notebooks.coursedir import BuiltAssignment, stale_inputs
from grader.notebooks.extract import Extraction, notebooks_of, solution_cells
from grader.notebooks.gradebook import (
    GradebookTarget,
    built_notebook,
    course_gradebook,
    enrol,
    gradebook_students,
    load_nbgrader_config,
    manual_state,
    points_changed,
    set_due_dates,
    verify_state,
)
from grader.notebooks.segments import assignment_modules
from grader.untrusted import shown


@dataclass(frozen=True)
class AutogradeInputs:
    """What one autograde is asked to do: every step reads it, none writes it.

    Attributes
    ----------
    course, course_dir, assignment
        The course, its nbgrader course directory (absolute) and the assignment graded.
    info
        What ``grader build`` recorded about the assignment (its notebook and student modules).
    gradebook
        The gradebook nbgrader's configuration names, or the one given (``--db``).
    console
        Where the steps print.
    options
        How to grade (:class:`~grader.engine.dispatch.GradingOptions`): jobs, sandbox, scheduler,
        the students asked for, where the records go, the grading processes kept for several
        assignments.
    download
        The LMS download to collect first (``--zip``), or None.
    rebuild_command
        How this course is rebuilt, as the instructor would type it.
    """

    course: Course
    course_dir: Path
    assignment: Assignment
    info: BuiltAssignment
    gradebook: GradebookTarget
    console: Console
    options: GradingOptions = GradingOptions()
    download: LmsDownload | None = None
    rebuild_command: str = "grader build"

    @classmethod
    def of(
        cls,
        course: Course,
        course_dir: Path,
        assignment_id: str,
        options: GradingOptions = GradingOptions(),
        *,
        download: LmsDownload | None = None,
        db_url: str | None = None,
        console: Console | None = None,
        rebuild_command: str | None = None,
    ) -> "AutogradeInputs":
        """The inputs of autograding ``assignment_id`` in ``course_dir``.

        ``db_url`` overrides the gradebook of nbgrader's configuration (as nbgrader's ``--db`` does).
        ``rebuild_command``: how messages tell to rebuild this course (default ``grader build --course-dir DIR``).

        Raises
        ------
        GraderError
            When ``course_dir`` was not built by ``grader build``, or the assignment is unknown or not built.
        """
        course_dir = Path(course_dir).resolve()
        if not (course_dir / "nbgrader_config.py").is_file():
            raise GraderError(f"{course_dir} is not a course directory built by `grader build` (no nbgrader_config.py)")
        assignment = course.assignment(assignment_id)
        out = Path(options.out).resolve() if options.out is not None else None
        return cls(
            course=course,
            course_dir=course_dir,
            assignment=assignment,
            info=built_info(course_dir, assignment),
            gradebook=course_gradebook(course_dir, db_url),
            console=console or Console(),
            options=replace(options, out=out),
            download=download,
            rebuild_command=rebuild_command or f"grader build --course-dir {course_dir}",
        )

    def recorder(self) -> Recorder:
        """A gradebook session recording this assignment as ``nbgrader autograde`` does."""
        return Recorder(self.course_dir, self.gradebook, self.assignment.id, self.info.notebook)

    def progress(self) -> Progress:
        return Progress(
            TextColumn("{task.description}"),
            BarColumn(),
            MofNCompleteColumn(),
            TimeElapsedColumn(),
            console=self.console,
            transient=False,
        )


@dataclass
class AutogradeState:
    """The frozen :attr:`inputs` of an autograde and what its steps produce, each step's docstring
    saying which it reads and writes (a step reads only what an earlier step wrote)."""

    inputs: AutogradeInputs
    collected: Collected | None = None  # what --zip collected
    students: list[str] = field(default_factory=list)  # the submissions graded, by student id
    unusable: list[str] = field(default_factory=list)  # folders of submitted/ whose name is no student id
    extractions: dict[str, Extraction] = field(default_factory=dict)
    records: dict[str, GradeRecord] = field(default_factory=dict)  # the trusted grades
    manual_before: dict = field(default_factory=dict)  # manual scores before student code ran
    record_failed: list[str] = field(default_factory=list)  # not recorded by nbgrader's steps: rescued
    rescued: list[str] = field(default_factory=list)
    restored: list[str] = field(default_factory=list)  # manual scores changed while grading, set back
    mismatches: list[str] = field(default_factory=list)  # where the gradebook differs from the records
    late: dict[str, tuple[float, float]] = field(default_factory=dict)  # student -> (seconds late, penalty)
    final: dict[str, tuple[float, list[str]]] = field(default_factory=dict)  # gradebook.final_scores
    warnings: list[str] = field(default_factory=list)  # any step may add one
    seconds: dict[str, float] = field(default_factory=dict)  # wall time of each step


class CollectZip:
    """Collect an LMS download into submitted/, and say at once -- before anything is graded -- what was
    left out and how to collect it. The students are named by the roster given (``--roster``), else by
    the gradebook's students that have an LMS id (``grader roster``, earlier collections), else by each
    LMS's rule (:mod:`grader.lms.identity`).

    Reads ``inputs.download`` (its roster too); writes ``collected`` (and submitted/, the console).
    """

    name = "collect"

    def __call__(self, state: AutogradeState) -> None:
        inputs, download = state.inputs, state.inputs.download
        if download is None:
            return
        roster = Roster(read_roster(download.roster)) if download.roster else gradebook_roster(inputs.gradebook)
        state.collected = collect_zip(
            inputs.course_dir,
            inputs.assignment.id,
            download,
            [inputs.info.notebook],
            inputs.info.student_modules,
            time_zone=inputs.course.time_zone,
            exercise_modules=[e.module for e in inputs.assignment.exercises if e.kind != "lab"],
            roster=roster,
        )
        print_collection(inputs.console, state.collected, download)


def feedback_is_sanitised(course_dir: Path) -> bool:
    """Does nbgrader's configuration, as nbgrader merges it, sanitise student HTML in feedback?"""
    steps = load_nbgrader_config(course_dir).GenerateFeedback.get("preprocessors", [])
    return any(getattr(step, "__name__", str(step)).rsplit(".", 1)[-1] == "SanitizeStudentHTML" for step in steps)


class FindSubmissions:
    """The submissions in submitted/<student>/<assignment>/, of the students asked for if any.

    Reads the inputs (``options.students``); writes ``students``, ``unusable`` and ``warnings``.
    """

    name = "find"

    def __call__(self, state: AutogradeState) -> None:
        inputs = state.inputs
        assignment, wanted = inputs.assignment, inputs.options.students
        stale = stale_inputs(inputs.course, inputs.course_dir)
        if stale:
            state.warnings.append(
                "the course changed since `grader build` ("
                + ", ".join(stale[:4])
                + (" ..." if len(stale) > 4 else "")
                + "); before releasing again run "
                f"`{inputs.rebuild_command} --assignment {assignment.id}`"
            )
        if not feedback_is_sanitised(inputs.course_dir):
            state.warnings.append(
                "nbgrader's configuration leaves SanitizeStudentHTML out of "
                "GenerateFeedback.preprocessors (an older `grader build`, or a setting of yours): "
                "feedback would show students' HTML unsanitized; run `grader build` again"
            )
        root = inputs.course_dir / "submitted"
        found = []
        for entry in sorted(root.iterdir()) if root.is_dir() and not root.is_symlink() else []:
            folder = entry / assignment.id
            # A linked folder counts as a submission: extraction refuses it, with a message.
            if entry.name.startswith(".") or not (folder.is_symlink() or folder.is_dir()):
                continue
            if SAFE_ID.match(entry.name):
                found.append(entry.name)
            else:
                state.unusable.append(entry.name)
                state.warnings.append(
                    f"submitted/{shown(entry.name)}/ is not graded: a student id may hold "
                    "letters, digits and . _ @ + - only (at most 100); rename it "
                    f"submitted/{name_id(entry.name)}/, the id every route gives that name"
                )
        if wanted:
            missing = [s for s in wanted if s not in found]
            if missing:
                raise GraderError(
                    f"no submission of {assignment.id} for: {', '.join(missing)} "
                    f"(looked in {root}/<student>/{assignment.id})"
                )
            found = [s for s in found if s in wanted]
        if not found:
            raise GraderError(f"no submissions of {assignment.id} in {root}/<student>/{assignment.id}/")
        state.students = found


class Enrol:
    """Every student in the gradebook, once the gradebook is known to hold the assignment's points.

    Reads the inputs and ``students``; writes the gradebook (due dates, students), nothing of the state.
    """

    name = "enrol"

    def __call__(self, state: AutogradeState) -> None:
        inputs = state.inputs
        assignment = inputs.assignment
        with inputs.gradebook.open() as gb:  # before grading: a gradebook the assignment was not built in
            notebook = built_notebook(gb, inputs.gradebook, assignment.id, Path(inputs.info.notebook).stem)
            changed = points_changed(
                notebook,
                {e.function: e.points for e in assignment.exercises}
                | {w.grade_id: w.points for w in assignment.written},
            )
            if not changed:  # a due date changed in course.yaml applies without a rebuild
                set_due_dates(gb, {assignment.id: inputs.course.due_utc(assignment.id)})
        if changed:  # nbgrader would cap the new scores at the old maximum: rebuild before grading
            rebuild = f"{inputs.rebuild_command} --assignment {assignment.id}"  # another command's line
            raise GraderError(
                f"the points of {assignment.id} changed in course.yaml since it was built "
                f"({', '.join(changed)}); the gradebook still has the old maximum. Run `{rebuild}` "
                "(keeps submissions, grades and manual grades), then autograde again"
            )
        enrol(inputs.gradebook, state.students, names_of(state.collected))


def gradebook_roster(target) -> Roster:
    """The gradebook's students that have an LMS id (``grader roster``, earlier collections): the students
    met so far, not the whole class (one it lacks is no news)."""
    return Roster([Person(*row) for row in gradebook_students(target) if row[4]], complete=False)


def names_of(collected: Collected | None) -> dict[str, tuple[str, str, str]]:
    """student -> (first name, last name, LMS id) as the download wrote them: the gradebook keeps what it
    does not know yet. Moodle's number is the assignment's, not the student's: not kept. A name is the
    student's to edit, and formgrader and ``nbgrader export`` show it as they read it: it is kept as a CSV
    cell shows it (:func:`grader.display.spreadsheet_cell`: control characters as escapes, never a formula)."""
    names = {}
    for student, sub in (collected.people if collected else {}).items():
        if sub.lms == "generic":
            continue
        first, _, last = (spreadsheet_cell(part) for part in sub.display_name.rpartition(" "))
        lms_id = sub.lms_id if sub.lms in ("canvas", "brightspace", "blackboard") else ""
        names[student] = (first or last, last if first else "", lms_id)
    return names


class Extract:
    """Each notebook's solution cells as modules shaped like exercises/.

    Reads the inputs and ``students``; writes ``extractions``.
    """

    name = "extract"

    def __call__(self, state: AutogradeState) -> None:
        self.run(state, state.students)

    @staticmethod
    def run(state: AutogradeState, students: list[str]) -> None:
        inputs = state.inputs
        modules = assignment_modules(inputs.course, inputs.assignment)  # once for the class
        for student in students:
            state.extractions[student] = extract(
                inputs.course, inputs.course_dir, inputs.assignment, inputs.info, student, modules=modules
            )


class NoteManual:
    """The manual scores, before any student code of the run runs (every assignment's, when several
    are graded in one run): set by people only, so any change made while student code runs is undone
    (see Verify).

    Reads the inputs; writes ``manual_before``.
    """

    name = "note"

    def __call__(self, state: AutogradeState) -> None:
        state.manual_before = manual_state(state.inputs.gradebook, state.inputs.assignment.id)


class Grade:
    """Every extraction graded with the hidden tests by the engine (a current record is not graded again:
    those graded ahead with other assignments' are current).

    Reads the inputs, ``students`` and ``extractions``; writes ``records``.
    """

    name = "grade"

    def __call__(self, state: AutogradeState) -> None:
        inputs = state.inputs
        options = inputs.options
        with inputs.progress() as progress:
            where = f"Dask cluster at {options.scheduler}" if options.scheduler else f"{options.jobs} job(s)"
            task = progress.add_task(
                f"grading {inputs.assignment.id} (trusted grader, {where})", total=len(state.students)
            )
            state.records = grade_extractions(
                inputs.course,
                inputs.course_dir,
                inputs.assignment,
                state.extractions,
                options,
                on_advance=lambda n: progress.advance(task, n),
                listener=SessionNotices(inputs.console),
            )


class SessionNotices(RunListener):
    """What people must see of the grading sessions while the bar runs: refused workers, retries.
    (The submissions that could not be graded are named once grading ends: see ``grade_extractions``.)"""

    def __init__(self, console: Console):
        self.console = console

    def refused(self, session: str, reason: str) -> None:
        self.console.print(refused_message(session, reason))

    def retry(self, student: str, session: str, reason: str) -> None:
        self.console.print(retry_message(student, session, reason))


class RecordGrades:
    """What ``nbgrader autograde`` writes, autograded/ and the gradebook, written by :class:`Recorder`
    (nbgrader's own preprocessors, TrustedGrade's step filled from the trusted records, one gradebook
    session) for every submission but the quarantined ones.

    Each notebook is read again, bounded and never through a link, and recorded only if its
    solution cells are the ones graded: one that changed since is graded again first. Who was
    processed is decided from the notebooks written; the others are rescued.

    Reads the inputs, ``students``, ``extractions`` and ``records``; writes ``record_failed`` and
    ``warnings`` (and autograded/ and the gradebook), and for a notebook that changed, ``extractions``
    and ``records``.
    """

    name = "record"
    PER_PROCESS = 4  # submissions per recording process at least: below, forking costs more than it saves

    def __call__(self, state: AutogradeState) -> None:
        inputs = state.inputs
        autograded = inputs.course_dir / "autograded"
        todo = [s for s in state.students if not state.extractions[s].quarantined]
        for student in state.students:  # what is written now is how we know a student was processed
            remove(autograded / student / inputs.assignment.id)
        failed: dict[str, str] = {}
        # Recording is this process's own work, one core's: with more cores free (grading is
        # over), a class is recorded by several processes, each with its gradebook session.
        processes = max(1, min(inputs.options.jobs, os.cpu_count() or 1, len(todo) // self.PER_PROCESS))
        # Forked before the progress bar starts its thread: a child holds no lock of another thread.
        children = self.fork(state, [todo[i::processes] for i in range(processes)]) if processes > 1 else {}
        with inputs.progress() as progress:
            task = progress.add_task("recording in the gradebook", total=len(todo))
            if children:
                changed = self.follow(state, children, failed, lambda: progress.advance(task))
            else:
                changed = self.in_this_process(state, todo, failed, lambda: progress.advance(task))
            if changed:  # graded from a notebook that is not there any more: grade what is there
                state.warnings.append(
                    f"{len(changed)} notebook(s) changed while the class was graded, graded "
                    f"again: {', '.join(changed[:5])}{' ...' if len(changed) > 5 else ''}"
                )
                Extract.run(state, changed)
                state.records.update(
                    grade_extractions(
                        inputs.course,
                        inputs.course_dir,
                        inputs.assignment,
                        {s: state.extractions[s] for s in changed},
                        inputs.options,
                    )
                )
                again = [s for s in changed if not state.extractions[s].quarantined]
                for student in self.in_this_process(state, again, failed, lambda: None):
                    failed[student] = "its notebook kept changing while it was graded"
        processed = [s for s in todo if (autograded / s / inputs.assignment.id / inputs.info.notebook).is_file()]
        state.record_failed = sorted(set(todo) - set(processed))
        for student in state.record_failed:
            state.warnings.append(
                f"{student}: the notebook could not be recorded as it is "
                f"({failed.get(student, 'no autograded notebook was written')}); rescued"
            )

    def in_this_process(self, state: AutogradeState, students: list[str], failed: dict[str, str], advance) -> list[str]:
        with state.inputs.recorder() as recorder:
            changed = self.record(state, recorder, students, failed, advance)
            state.warnings += recorder.warnings
        return changed

    def fork(self, state: AutogradeState, parts: list[list[str]]) -> dict[pipes.Child, list[str]]:
        """A process per part, forked (the class's state is already there), recording it: {child: its part}."""
        children: dict[pipes.Child, list[str]] = {}
        try:
            for part in parts:
                children[pipes.fork(lambda tell, part=part: self._child(state, part, tell))] = part
        except BaseException:
            for child in children:
                child.end()
            raise
        return children

    def follow(
        self, state: AutogradeState, children: dict[pipes.Child, list[str]], failed: dict[str, str], advance
    ) -> list[str]:
        """What the recording processes tell: a line when a submission is done, then what they found
        (the reasons of failures, notebooks that changed, warnings)."""
        changed: list[str] = []
        finished: set[pipes.Child] = set()

        def handle(child: pipes.Child, message: dict) -> None:
            if "done" in message:
                advance()
            elif "error" in message:
                state.warnings.append(f"a recording process stopped: {message['error']}")
            else:
                finished.add(child)
                failed.update(message["failed"])
                changed.extend(message["changed"])
                state.warnings.extend(message["warnings"])

        try:
            pipes.follow(children, handle)
        finally:
            codes = {child: child.end() for child in children}
        for child, part in children.items():
            if child not in finished:  # what it did not write is rescued: say why
                for student in part:
                    failed.setdefault(student, f"its recording process ended (exit status {codes[child]})")
        return changed

    def _child(self, state: AutogradeState, students: list[str], tell: pipes.Tell) -> int:
        try:
            failed: dict[str, str] = {}
            with state.inputs.recorder() as recorder:
                changed = self.record(state, recorder, students, failed, lambda: tell({"done": True}))
                tell({"failed": failed, "changed": changed, "warnings": recorder.warnings})
            return 0
        except BaseException as exc:  # its students are not written: they are rescued
            tell({"error": shown(f"{type(exc).__name__}: {exc}", 300)})
            return 1

    @staticmethod
    def record(
        state: AutogradeState, recorder: Recorder, students: list[str], failed: dict[str, str], advance
    ) -> list[str]:
        """Record each of ``students`` whose notebook holds the solution cells graded; the others, returned,
        changed since. A notebook nbgrader's steps fail on is left out, with the reason in ``failed``."""
        inputs = state.inputs
        changed = []
        for student in students:
            folder = submission_dir(inputs.course_dir, student, inputs.assignment.id)
            notebooks, problems = notebooks_of(folder, [inputs.info.notebook])
            data = notebooks[0] if notebooks else None
            if problems or data is None or solution_cells(data) != state.extractions[student].read:
                changed.append(student)
                continue
            try:
                recorder.record(student, notebook_node(data), state.records[student])
            except Exception as exc:  # nbgrader's own steps refuse some notebooks: rescued
                reason = shown(f"{type(exc).__name__}: {exc}", 200)
                failed[student] = f"nbgrader's autograde steps failed on it: {reason}"
            advance()
        return changed


class Rescue:
    """An autograded notebook and grades for the quarantined submissions and for those nbgrader's steps refused.

    Reads the inputs, ``students``, ``extractions``, ``records`` and ``record_failed``; writes ``rescued``
    and ``warnings`` (and autograded/ and the gradebook).
    """

    name = "rescue"

    def __call__(self, state: AutogradeState) -> None:
        quarantined = [s for s in state.students if state.extractions[s].quarantined]
        rescue = sorted(set(state.record_failed) | set(quarantined))
        if not rescue:
            return
        with state.inputs.recorder() as recorder:
            for student in rescue:
                recorder.placeholder(student, state.records[student])
                state.rescued.append(student)
            state.warnings += recorder.warnings


class Verify:
    """The gradebook holds exactly the trusted grades, and no manual score changed (set back if one did).

    Reads the inputs, ``students``, ``records`` and ``manual_before``; writes ``restored``,
    ``mismatches``, ``late`` and ``final``.
    """

    name = "verify"

    def __call__(self, state: AutogradeState) -> None:
        gradebook, assignment = state.inputs.gradebook, state.inputs.assignment.id
        state.restored, recorded, late, state.final = verify_state(gradebook, assignment, state.manual_before)
        state.late = own_lateness(state.inputs.course, assignment, late)
        for student in state.students:
            expected = state.records[student].scores()
            got = recorded.get(student, {})
            for function, (score, _) in expected.items():
                value = got.get(function)
                if value is None or abs(float(value) - score) > 1e-6:
                    state.mismatches.append(f"{student}/{function}: gradebook has {value}, the grader gave {score:g}")


def own_lateness(course: Course, assignment: str, late: dict[str, tuple[float, float]]) -> dict:
    """student -> (seconds late by their own due date, penalty): nbgrader counts from the assignment's due
    date, a student with an extension (calendar.extensions) from theirs, an excused one not at all."""
    due = course.due_utc(assignment)
    out = {}
    for student, (seconds, penalty) in late.items():
        extension = course.extensions.of(assignment, student)
        if extension is not None and (extension.excused or due is None):
            continue
        if extension is not None:
            seconds -= (course.due_utc(assignment, student) - due).total_seconds()
        if seconds > 0:
            out[student] = (seconds, penalty)
    return out


# Up to the grading, and from it: several assignments graded in one run stop in between, to be graded
# together (grader.autograde.trusted.grade_ahead).
BEFORE_GRADING = (CollectZip(), FindSubmissions(), Enrol(), Extract(), NoteManual())
FROM_GRADING = (Grade(), RecordGrades(), Rescue(), Verify())
AUTOGRADE_STEPS = BEFORE_GRADING + FROM_GRADING


def autograde(inputs: AutogradeInputs, steps=AUTOGRADE_STEPS, state: AutogradeState | None = None) -> AutogradeState:
    """Run the autograde ``steps`` on one assignment of an nbgrader course directory
    (:meth:`AutogradeInputs.of`), each after the other on one :class:`AutogradeState` (``state``: go on
    with one that earlier steps made).

    Raises
    ------
    GraderError
        When this assignment cannot be graded (no submissions, points changed since the
        build); nothing of it is recorded then.
    """
    state = state if state is not None else AutogradeState(inputs)
    for step in steps:
        started = time.perf_counter()
        step(state)
        state.seconds[step.name] = time.perf_counter() - started
    return state
