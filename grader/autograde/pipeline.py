"""``grader autograde``: grade an nbgrader class with the trusted grader and record it in the gradebook.

An ordered pipeline of named steps (:data:`AUTOGRADE_STEPS`) on a shared
:class:`AutogradeState`:

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

import json
import os
import selectors
import signal
import time
from dataclasses import dataclass, field
from pathlib import Path

from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

from grader.notebooks.extract import Extraction, notebooks_of, solution_cells
from grader.notebooks.gradebook import (GradebookTarget, built_notebook, course_gradebook, enrol, gradebook_scores,
                                        final_scores, late_state, load_nbgrader_config, manual_state, points_changed,
                                        restore_manual, set_due_dates)
from grader.autograde.recorder import Recorder, notebook_node, remove
from grader.autograde.trusted import built_info, extract, grade_extractions, submission_dir
from grader.engine.record import GradeRecord
from grader.notebooks.coursedir import BuiltAssignment, stale_inputs
from grader.notebooks.segments import assignment_modules
from grader.engine.store import SAFE_ID
from grader.core.course import Assignment, Course
from grader.display import markup
from grader.errors import GraderError
from grader.untrusted import shown
from grader.autograde.zipcollect import LMS_SHAPES, collect_zip


@dataclass
class AutogradeState:
    course: Course
    course_dir: Path
    assignment: Assignment
    console: Console
    gradebook: GradebookTarget
    db_url: str | None = None  # given on the command line (passed on to nbgrader), else None
    students_wanted: list[str] | None = None
    jobs: int = 1
    archive: Path | None = None
    name_regexp: str | None = None
    lms: str = "auto"  # the LMS whose download --zip is (zipcollect.LMS_NAMES)
    info: BuiltAssignment | None = None
    students: list[str] = field(default_factory=list)
    unusable: list[str] = field(default_factory=list)  # folders of submitted/ whose name is no student id
    extractions: dict[str, Extraction] = field(default_factory=dict)
    records: dict[str, GradeRecord] = field(default_factory=dict)
    scheduler: str | None = None
    out: Path | None = None
    record_failed: list[str] = field(default_factory=list)
    rescued: list[str] = field(default_factory=list)
    mismatches: list[str] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)
    sandbox: str = "auto"
    manual_before: dict = field(default_factory=dict)
    restored: list[str] = field(default_factory=list)
    seconds: dict[str, float] = field(default_factory=dict)  # wall time of each step
    late: dict[str, tuple[float, float]] = field(default_factory=dict)  # student -> (seconds late, penalty)
    final: dict[str, tuple[float, list[str]]] = field(default_factory=dict)  # gradebook.final_scores
    pool: object | None = None  # grading processes kept for several assignments (trusted.grading_pool)
    rebuild_command: str = "grader build"  # how this course is rebuilt, as the instructor would type it

    def progress(self) -> Progress:
        return Progress(TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn(),
                        console=self.console, transient=False)


class CollectZip:
    """Collect an LMS download into submitted/, and say at once -- before anything is graded -- what was
    left out and how to collect it."""

    name = "collect"

    def __call__(self, state: AutogradeState) -> None:
        if state.archive is None:
            return

        info = built_info(state.course_dir, state.assignment)
        collected = collect_zip(state.course_dir, state.assignment.id, state.archive, [info.notebook],
                                info.student_modules, state.name_regexp, lms=state.lms,
                                time_zone=state.course.time_zone,
                                exercise_modules=[e.module for e in state.assignment.exercises if e.kind != "lab"])
        how = (f"a {collected.lms} download" + (" (recognised from its names)" if collected.detected else "")
               if collected.lms != "generic" else "names read as " + (f"--name-regexp {state.name_regexp}"
                                                                      if state.name_regexp else "<student>_<file>"))
        state.console.print(f"collected {collected.files} file(s) of {len(collected.students)} student(s) from "
                            f"{markup(state.archive.name)} into submitted/ ({markup(how)})")
        if collected.late:
            state.console.print(f"marked late by the LMS: {markup(', '.join(collected.late))}")
        if collected.stand_in:
            state.console.print(f"no notebook, graded from their .py modules (the release notebook stands in for "
                                f"nbgrader): {markup(', '.join(collected.stand_in))}")
        for problem in collected.problems:
            state.console.print(f"[yellow]not collected:[/yellow] {markup(state.archive.name)}: {markup(problem)}")
        if collected.unnamed:
            shapes = ", ".join(LMS_SHAPES)
            state.console.print(f"[yellow]{collected.unnamed} file(s) gave no student:[/yellow] give the LMS with "
                                f"--lms ({shapes}) or the names' shape with --name-regexp "
                                r"'(?P<student_id>...)_(?P<file_id>...)', then run this command again")


def feedback_is_sanitised(course_dir: Path) -> bool:
    """Does nbgrader's configuration, as nbgrader merges it, sanitise student HTML in feedback?"""
    steps = load_nbgrader_config(course_dir).GenerateFeedback.get("preprocessors", [])
    return any(getattr(step, "__name__", str(step)).rsplit(".", 1)[-1] == "SanitizeStudentHTML" for step in steps)


class FindSubmissions:
    name = "find"

    def __call__(self, state: AutogradeState) -> None:
        state.info = built_info(state.course_dir, state.assignment)
        stale = stale_inputs(state.course, state.course_dir)
        if stale:
            state.warnings.append("the course changed since `grader build` (" + ", ".join(stale[:4])
                                  + (" ..." if len(stale) > 4 else "") + "); before releasing again run "
                                  f"`{state.rebuild_command} --assignment {state.assignment.id}`")
        if not feedback_is_sanitised(state.course_dir):
            state.warnings.append("nbgrader's configuration leaves SanitizeStudentHTML out of "
                                  "GenerateFeedback.preprocessors (an older `grader build`, or a setting of yours): "
                                  "feedback would show students' HTML unsanitized; run `grader build` again")
        root = state.course_dir / "submitted"
        found = []
        for entry in sorted(root.iterdir()) if root.is_dir() and not root.is_symlink() else []:
            folder = entry / state.assignment.id
            # A linked folder counts as a submission: extraction refuses it, with a message.
            if entry.name.startswith(".") or not (folder.is_symlink() or folder.is_dir()):
                continue
            if SAFE_ID.match(entry.name):
                found.append(entry.name)
            else:
                state.unusable.append(entry.name)
                state.warnings.append(f"submitted/{shown(entry.name)}/ is not graded: a student id may hold "
                                      "letters, digits and . _ @ + - only (at most 100)")
        if state.students_wanted:
            missing = [s for s in state.students_wanted if s not in found]
            if missing:
                raise GraderError(f"no submission of {state.assignment.id} for: {', '.join(missing)} "
                                  f"(looked in {root}/<student>/{state.assignment.id})")
            found = [s for s in found if s in state.students_wanted]
        if not found:
            raise GraderError(f"no submissions of {state.assignment.id} in {root}/<student>/{state.assignment.id}/")
        state.students = found


class Enrol:
    name = "enrol"

    def __call__(self, state: AutogradeState) -> None:
        with state.gradebook.open() as gb:  # before grading: a gradebook the assignment was not built in
            notebook = built_notebook(gb, state.gradebook, state.assignment.id, Path(state.info.notebook).stem)
            changed = points_changed(notebook, {e.function: e.points for e in state.assignment.exercises}
                                     | {w.grade_id: w.points for w in state.assignment.written})
            if not changed:  # a due date changed in course.yaml applies without a rebuild
                set_due_dates(gb, {state.assignment.id: state.course.due_utc(state.assignment.id)})
        if changed:  # nbgrader would cap the new scores at the old maximum: rebuild before grading
            rebuild = f"{state.rebuild_command} --assignment {state.assignment.id}"  # another command's line
            raise GraderError(f"the points of {state.assignment.id} changed in course.yaml since it was built "
                              f"({', '.join(changed)}); the gradebook still has the old maximum. Run `{rebuild}` "
                              "(keeps submissions, grades and manual grades), then autograde again")
        enrol(state.gradebook, state.students)


class Extract:
    name = "extract"

    def __call__(self, state: AutogradeState) -> None:
        self.run(state, state.students)

    @staticmethod
    def run(state: AutogradeState, students: list[str]) -> None:
        modules = assignment_modules(state.course, state.assignment)  # once for the class
        for student in students:
            state.extractions[student] = extract(state.course, state.course_dir, state.assignment, state.info,
                                                 student, modules=modules)


class Grade:
    name = "grade"

    def __call__(self, state: AutogradeState) -> None:
        # Manual scores are set by people only: remember them, to undo any change made
        # while student code runs (see Verify).
        state.manual_before = manual_state(state.gradebook, state.assignment.id)
        with state.progress() as progress:
            where = f"Dask cluster at {state.scheduler}" if state.scheduler else f"{state.jobs} job(s)"
            task = progress.add_task(f"grading {state.assignment.id} (trusted grader, {where})",
                                     total=len(state.students))
            state.records = grade_extractions(state.course, state.course_dir, state.assignment, state.extractions,
                                              jobs=state.jobs, sandbox=state.sandbox, scheduler=state.scheduler,
                                              out=state.out, on_advance=lambda n: progress.advance(task, n),
                                              on_event=lambda kind, data: self.tell(state, kind, data),
                                              pool=state.pool)

    @staticmethod
    def tell(state: AutogradeState, kind: str, data: dict) -> None:
        """What people must see of the grading sessions: refused workers, retries, lost sessions."""
        from rich.markup import escape

        if kind == "refused":
            state.console.print(f"[bold red]refused {escape(data['session'])}: {escape(data['reason'])}[/bold red]")
        elif kind == "retry":
            state.console.print(f"[yellow]{escape(data['session'])} lost {escape(data['student'])} "
                                f"({escape(data['reason'])}); grading it again elsewhere[/yellow]")


class Record:
    """What ``nbgrader autograde`` writes, autograded/ and the gradebook, written by :class:`Recorder`
    (nbgrader's own preprocessors, TrustedGrade's step filled from the trusted records, one gradebook
    session) for every submission but the quarantined ones.

    Each notebook is read again, bounded and never through a link, and recorded only if its
    solution cells are the ones graded: one that changed since is graded again first. Who was
    processed is decided from the notebooks written; the others are rescued.
    """

    name = "record"
    PER_PROCESS = 4  # submissions per recording process at least: below, forking costs more than it saves

    def __call__(self, state: AutogradeState) -> None:
        autograded = state.course_dir / "autograded"
        todo = [s for s in state.students if not state.extractions[s].quarantined]
        for student in state.students:  # what is written now is how we know a student was processed
            remove(autograded / student / state.assignment.id)
        failed: dict[str, str] = {}
        # Recording is this process's own work, one core's: with more cores free (grading is
        # over), a class is recorded by several processes, each with its gradebook session.
        processes = max(1, min(state.jobs, os.cpu_count() or 1, len(todo) // self.PER_PROCESS))
        # Forked before the progress bar starts its thread: a child holds no lock of another thread.
        children = self.fork(state, [todo[i::processes] for i in range(processes)]) if processes > 1 else {}
        with state.progress() as progress:
            task = progress.add_task("recording in the gradebook", total=len(todo))
            if children:
                changed = self.follow(state, children, failed, lambda: progress.advance(task))
            else:
                changed = self.in_this_process(state, todo, failed, lambda: progress.advance(task))
            if changed:  # graded from a notebook that is not there any more: grade what is there
                state.warnings.append(f"{len(changed)} notebook(s) changed while the class was graded, graded "
                                      f"again: {', '.join(changed[:5])}{' ...' if len(changed) > 5 else ''}")
                Extract.run(state, changed)
                state.records.update(grade_extractions(state.course, state.course_dir, state.assignment,
                                                       {s: state.extractions[s] for s in changed}, jobs=state.jobs,
                                                       sandbox=state.sandbox, scheduler=state.scheduler,
                                                       out=state.out, pool=state.pool))
                again = [s for s in changed if not state.extractions[s].quarantined]
                for student in self.in_this_process(state, again, failed, lambda: None):
                    failed[student] = "its notebook kept changing while it was graded"
        notebook = state.info.notebook
        processed = [s for s in todo if (autograded / s / state.assignment.id / notebook).is_file()]
        state.record_failed = sorted(set(todo) - set(processed))
        for student in state.record_failed:
            state.warnings.append(f"{student}: the notebook could not be recorded as it is "
                                  f"({failed.get(student, 'no autograded notebook was written')}); rescued")

    def in_this_process(self, state: AutogradeState, students: list[str], failed: dict[str, str], advance) -> list[str]:
        with Recorder(state.course_dir, state.gradebook, state.assignment.id, state.info.notebook) as recorder:
            changed = self.record(state, recorder, students, failed, advance)
            state.warnings += recorder.warnings
        return changed

    def fork(self, state: AutogradeState, parts: list[list[str]]) -> dict[int, tuple[int, list[str]]]:
        """A process per part, forked (the class's state is already there), recording it:
        {its pipe: (its pid, its part)}."""
        children: dict[int, tuple[int, list[str]]] = {}
        try:
            for part in parts:
                read, write = os.pipe()
                pid = os.fork()
                if pid == 0:  # pragma: no cover - runs in the child, which never returns
                    os.close(read)
                    os._exit(self._child(state, part, write))
                os.close(write)
                children[read] = (pid, part)
        except BaseException:
            self.reap(children)
            raise
        return children

    def follow(self, state: AutogradeState, children: dict[int, tuple[int, list[str]]], failed: dict[str, str],
               advance) -> list[str]:
        """What the recording processes tell, each on its pipe: a line when a submission is done, then
        what they found (the reasons of failures, notebooks that changed, warnings)."""
        changed: list[str] = []
        finished: set[int] = set()
        try:
            with selectors.DefaultSelector() as selector:
                for read in children:
                    selector.register(read, selectors.EVENT_READ, [b""])
                while selector.get_map():
                    for key, _ in selector.select():
                        chunk = os.read(key.fd, 1 << 16)
                        if not chunk:
                            selector.unregister(key.fd)
                            continue
                        *lines, key.data[0] = (key.data[0] + chunk).split(b"\n")
                        for message in map(json.loads, lines):
                            if "done" in message:
                                advance()
                            elif "error" in message:
                                state.warnings.append(f"a recording process stopped: {message['error']}")
                            else:
                                finished.add(key.fd)
                                failed.update(message["failed"])
                                changed += message["changed"]
                                state.warnings += message["warnings"]
        finally:
            codes = self.reap(children)
        for read, (pid, part) in children.items():
            if read not in finished:  # what it did not write is rescued: say why
                for student in part:
                    failed.setdefault(student, f"its recording process ended (exit status {codes[read]})")
        return changed

    @staticmethod
    def reap(children: dict[int, tuple[int, list[str]]]) -> dict[int, int]:
        """Close the pipes, end the processes (if still there: interrupted) and collect their exit statuses."""
        codes = {}
        for read, (pid, _) in children.items():
            os.close(read)
            try:
                os.kill(pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
            codes[read] = os.waitstatus_to_exitcode(os.waitpid(pid, 0)[1])
        return codes

    def _child(self, state: AutogradeState, students: list[str], write: int) -> int:
        with os.fdopen(write, "w", encoding="utf-8") as out:
            def tell(message: dict) -> None:
                out.write(json.dumps(message) + "\n")
                out.flush()

            try:
                failed: dict[str, str] = {}
                with Recorder(state.course_dir, state.gradebook, state.assignment.id, state.info.notebook) as recorder:
                    changed = self.record(state, recorder, students, failed, lambda: tell({"done": True}))
                    tell({"failed": failed, "changed": changed, "warnings": recorder.warnings})
                return 0
            except BaseException as exc:  # its students are not written: they are rescued
                tell({"error": shown(f"{type(exc).__name__}: {exc}", 300)})
                return 1

    @staticmethod
    def record(state: AutogradeState, recorder: Recorder, students: list[str], failed: dict[str, str],
               advance) -> list[str]:
        """Record each of ``students`` whose notebook holds the solution cells graded; the others, returned,
        changed since. A notebook nbgrader's steps fail on is left out, with the reason in ``failed``."""
        changed = []
        for student in students:
            folder = submission_dir(state.course_dir, student, state.assignment.id)
            notebooks, problems = notebooks_of(folder, [state.info.notebook])
            data = notebooks[0] if notebooks else None
            if problems or data is None or solution_cells(data) != state.extractions[student].cells:
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
    name = "rescue"

    def __call__(self, state: AutogradeState) -> None:
        quarantined = [s for s in state.students if state.extractions[s].quarantined]
        rescue = sorted(set(state.record_failed) | set(quarantined))
        if not rescue:
            return
        with Recorder(state.course_dir, state.gradebook, state.assignment.id, state.info.notebook) as recorder:
            for student in rescue:
                recorder.placeholder(student, state.records[student])
                state.rescued.append(student)
            state.warnings += recorder.warnings


class Verify:
    name = "verify"

    def __call__(self, state: AutogradeState) -> None:
        state.restored = restore_manual(state.gradebook, state.assignment.id, state.manual_before)
        recorded = gradebook_scores(state.gradebook, state.assignment.id)
        for student in state.students:
            expected = state.records[student].scores()
            got = recorded.get(student, {})
            for function, (score, _) in expected.items():
                value = got.get(function)
                if value is None or abs(float(value) - score) > 1e-6:
                    state.mismatches.append(f"{student}/{function}: gradebook has {value}, the grader gave {score:g}")
        state.late = late_state(state.gradebook, state.assignment.id)
        state.final = final_scores(state.gradebook, state.assignment.id)


AUTOGRADE_STEPS = (CollectZip(), FindSubmissions(), Enrol(), Extract(), Grade(), Record(), Rescue(), Verify())


def autograde(course: Course, course_dir: Path, assignment_id: str, *, students: list[str] | None = None,
              jobs: int = 1, archive: Path | None = None, name_regexp: str | None = None, lms: str = "auto",
              sandbox: str = "auto", scheduler: str | None = None, out: Path | None = None,
              db_url: str | None = None, console: Console | None = None, steps=AUTOGRADE_STEPS,
              pool=None, rebuild_command: str | None = None) -> AutogradeState:
    """Run the autograde pipeline on one assignment of an nbgrader course directory.

    ``db_url`` overrides the gradebook of nbgrader's configuration (as nbgrader's ``--db`` does).
    ``pool``: grading processes kept for several assignments (:func:`grader.autograde.trusted.grading_pool`).
    ``rebuild_command``: how messages tell to rebuild this course (default ``grader build --course-dir DIR``).

    Raises
    ------
    GraderError
        When this assignment cannot be graded (not built, no submissions, points changed since the
        build); nothing of it is recorded then.
    """
    course_dir = Path(course_dir).resolve()
    if not (course_dir / "nbgrader_config.py").is_file():
        raise GraderError(f"{course_dir} is not a course directory built by `grader build` (no nbgrader_config.py)")
    state = AutogradeState(course=course, course_dir=course_dir, assignment=course.assignment(assignment_id),
                           console=console or Console(), gradebook=course_gradebook(course_dir, db_url),
                           db_url=db_url or None, students_wanted=students, jobs=jobs,
                           archive=Path(archive) if archive else None, name_regexp=name_regexp, lms=lms,
                           sandbox=sandbox,
                           scheduler=scheduler, out=Path(out).resolve() if out is not None else None, pool=pool,
                           rebuild_command=rebuild_command or f"grader build --course-dir {course_dir}")
    for step in steps:
        started = time.perf_counter()
        step(state)
        state.seconds[step.name] = time.perf_counter() - started
    return state
