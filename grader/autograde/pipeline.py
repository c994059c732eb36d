"""``grader autograde``: grade an nbgrader class with the trusted grader and record it in the gradebook.

An ordered pipeline of named steps (:data:`AUTOGRADE_STEPS`) on a shared
:class:`AutogradeState`:

1. ``collect``  (with ``--zip``) an LMS download into submitted/ (:mod:`grader.autograde.zipcollect`)
2. ``find``     the submissions: submitted/<student>/<assignment>/
3. ``enrol``    every student in the gradebook (safe when another autograde shares the database)
4. ``extract``  each notebook's solution cells into modules shaped like exercises/
5. ``grade``    all of them with the hidden tests, with the engine of ``grader grade-class`` (trusted
                processes here or a Dask cluster's workers, sandboxed; a current record is not regraded)
6. ``record``   ``nbgrader autograde`` with ``TrustedGrade`` in place of ``Execute``, for every
                submission but the quarantined ones (links, special files, repaired notebook JSON)
7. ``rescue``   an autograded notebook and grades for the quarantined submissions and for those
                nbgrader did not process
8. ``verify``   the gradebook holds exactly the trusted grades, and no manual score changed

The gradebook is the one nbgrader's configuration names (``CourseDirectory.db_url``), or
``db_url`` when given: SQLite by default, PostgreSQL for a teaching team.

Nothing of a submission runs in a Jupyter kernel or in nbgrader's process, and no
student's failure stops the class. Nothing is decided from nbgrader's log, which
carries student text (grade ids, cell sources): who nbgrader processed is read from
the files it wrote, and the gradebook is checked against the trusted records.
"""

from __future__ import annotations

import shutil
from dataclasses import dataclass, field
from pathlib import Path

from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

from grader.autograde.extract import Extraction
from grader.autograde.gradebook import (GradebookTarget, course_gradebook, enrol, gradebook_scores, manual_state,
                                        restore_manual, write_placeholder)
from grader.autograde.trusted import built_info, extract, grade_extractions
from grader.engine.record import GradeRecord
from grader.build.coursedir import CONFIG, BuiltAssignment, stale_inputs
from grader.build.nbgrader_run import run_nbgrader
from grader.build.segments import assignment_modules
from grader.engine.store import SAFE_ID
from grader.course import Assignment, Course
from grader.display import markup
from grader.errors import GraderError
from grader.untrusted import shown


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
    info: BuiltAssignment | None = None
    students: list[str] = field(default_factory=list)
    unusable: list[str] = field(default_factory=list)  # folders of submitted/ whose name is no student id
    extractions: dict[str, Extraction] = field(default_factory=dict)
    records: dict[str, GradeRecord] = field(default_factory=dict)
    scheduler: str | None = None
    out: Path | None = None
    nbgrader_failed: list[str] = field(default_factory=list)
    rescued: list[str] = field(default_factory=list)
    mismatches: list[str] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)
    sandbox: str = "auto"
    manual_before: dict = field(default_factory=dict)
    restored: list[str] = field(default_factory=list)

    def progress(self) -> Progress:
        return Progress(TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn(),
                        console=self.console, transient=False)


class CollectZip:
    name = "collect"

    def __call__(self, state: AutogradeState) -> None:
        if state.archive is None:
            return
        from grader.autograde.zipcollect import collect_zip

        info = built_info(state.course_dir, state.assignment)
        collected = collect_zip(state.course_dir, state.assignment.id, state.archive, [info.notebook],
                                info.student_modules, state.name_regexp)
        state.console.print(f"collected {collected.files} file(s) of {len(collected.students)} student(s) from "
                            f"{markup(state.archive.name)} into submitted/")
        state.warnings += [f"{state.archive.name}: {problem}" for problem in collected.problems]


class FindSubmissions:
    name = "find"

    def __call__(self, state: AutogradeState) -> None:
        state.info = built_info(state.course_dir, state.assignment)
        stale = stale_inputs(state.course, state.course_dir)
        if stale:
            state.warnings.append("the course changed since `grader build` (" + ", ".join(stale[:4])
                                  + (" ..." if len(stale) > 4 else "") + "); rebuild before releasing again")
        if "SanitizeStudentHTML" not in (state.course_dir / CONFIG).read_text(encoding="utf-8"):
            state.warnings.append("nbgrader_config.py was written by an older `grader build`: feedback and "
                                  "formgrader would show students' HTML unsanitized; run `grader build` again")
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
        enrol(state.gradebook, state.students)


class Extract:
    name = "extract"

    def __call__(self, state: AutogradeState) -> None:
        modules = assignment_modules(state.course, state.assignment)  # once for the class
        for student in state.students:
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
                                              on_event=lambda kind, data: self.tell(state, kind, data))

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
    """nbgrader's own autograde, with TrustedGrade instead of Execute (see nbgrader_config.py).

    Quarantined submissions are left out (nbgrader would follow their links or parse
    their repaired JSON). Who nbgrader processed is read from the files it wrote, never
    from its log: the log carries student text.
    """

    name = "record"
    TIMEOUT = 3600.0  # seconds for one nbgrader autograde (reading records is quick; regrading is not)

    def __call__(self, state: AutogradeState) -> None:
        autograded = state.course_dir / "autograded"
        passed = [s for s in state.students if not state.extractions[s].quarantined]
        excluded = sorted({s for s in state.students if s not in passed} | set(state.unusable))
        for student in state.students:  # what nbgrader writes now is how we know it processed a student
            _remove(autograded / student / state.assignment.id)
        if state.students_wanted or any("," in name for name in excluded):
            runs = [[f"--student={student}"] for student in passed]
        else:
            runs = [["--student=*"] + ([f"--CourseDirectory.student_id_exclude={','.join(excluded)}"]
                                       if excluded else [])]
        tail: list[str] = []
        failed_runs = 0
        with state.progress() as progress:
            task = progress.add_task("recording in the gradebook (nbgrader autograde)", total=len(passed))
            lines = 0

            def follow(line: str) -> None:  # a progress bar only: nothing is decided from the log
                nonlocal lines
                if "Sanitizing" in line:
                    lines += 1
                    progress.update(task, completed=min(lines, len(passed)))

            for args in runs if passed else []:
                # A notebook whose record does not match is graded again by TrustedGrade: with the
                # same sandbox choice, course and results as the rest of the class.
                options = [f"--TrustedGrade.sandbox={state.sandbox}", f"--TrustedGrade.course_root={state.course.root}"]
                if state.out is not None:
                    options.append(f"--TrustedGrade.results_dir={state.out}")
                if state.db_url:
                    options.append(f"--CourseDirectory.db_url={state.db_url}")
                proc = run_nbgrader(state.course_dir, "autograde", state.assignment.id, "--force", *args,
                                    *options, timeout=self.TIMEOUT, check=False, on_line=follow)
                tail = proc.stdout.splitlines()[-20:]
                failed_runs += proc.returncode != 0
        notebook = state.info.notebook
        processed = [s for s in passed if (autograded / s / state.assignment.id / notebook).is_file()]
        if len(passed) > 1 and not processed and failed_runs:
            raise GraderError("nbgrader autograde did not process any submission:\n" + "\n".join(tail))
        state.nbgrader_failed = sorted(set(passed) - set(processed))
        if failed_runs and not state.nbgrader_failed:  # the verify step says whether grades were lost
            state.warnings.append("nbgrader autograde reported an error although it wrote every notebook; its log "
                                  "ends:\n" + "\n".join(tail))


def _remove(path: Path) -> None:
    if path.is_symlink() or path.is_file():
        path.unlink()
    elif path.is_dir():
        shutil.rmtree(path)


class Rescue:
    name = "rescue"

    def __call__(self, state: AutogradeState) -> None:
        quarantined = [s for s in state.students if state.extractions[s].quarantined]
        for student in sorted(set(state.nbgrader_failed) | set(quarantined)):
            write_placeholder(state.course_dir, state.gradebook, state.assignment.id, state.info.notebook, student,
                              state.records[student])
            state.rescued.append(student)


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


AUTOGRADE_STEPS = (CollectZip(), FindSubmissions(), Enrol(), Extract(), Grade(), Record(), Rescue(), Verify())


def autograde(course: Course, course_dir: Path, assignment_id: str, *, students: list[str] | None = None,
              jobs: int = 1, archive: Path | None = None, name_regexp: str | None = None,
              sandbox: str = "auto", scheduler: str | None = None, out: Path | None = None,
              db_url: str | None = None, console: Console | None = None, steps=AUTOGRADE_STEPS) -> AutogradeState:
    """Run the autograde pipeline on one assignment of an nbgrader course directory.

    ``db_url`` overrides the gradebook of nbgrader's configuration (as nbgrader's ``--db`` does).
    """
    course_dir = Path(course_dir).resolve()
    if not (course_dir / "nbgrader_config.py").is_file():
        raise GraderError(f"{course_dir} is not a course directory built by `grader build` (no nbgrader_config.py)")
    state = AutogradeState(course=course, course_dir=course_dir, assignment=course.assignment(assignment_id),
                           console=console or Console(), gradebook=course_gradebook(course_dir, db_url),
                           db_url=db_url or None, students_wanted=students, jobs=jobs,
                           archive=Path(archive) if archive else None, name_regexp=name_regexp, sandbox=sandbox,
                           scheduler=scheduler, out=Path(out).resolve() if out is not None else None)
    for step in steps:
        step(state)
    return state
