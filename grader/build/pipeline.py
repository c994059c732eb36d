"""``grader build``: the course as an nbgrader course directory, released with real nbgrader.

The build is an ordered pipeline of named steps (:data:`BUILD_STEPS`), each doing
one job on a shared :class:`BuildState`:

1. ``check``    which assignments can be built now (missing pieces skip an assignment, with the reason)
2. ``notebooks``  source/<assignment>/<assignment>.ipynb from course.yaml, solutions/ and the tests
3. ``config``   nbgrader_config.py (course id, the course's own preprocessors, the instructor's settings
                such as the gradebook URL), and a check that the gradebook opens
4. ``release``  ``nbgrader generate_assignment`` for every built assignment
5. ``leaks``    the leak check over release/ and exercises/
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from rich.console import Console

from grader.build.kit import write_kits
from grader.build.leaks import check_leaks
from grader.build.nbgrader_run import run_nbgrader
from grader.build.notebook import build_notebook, lab_source, load_prose
from grader.build.written import write_rubrics
from grader.core.course import Assignment, Course, is_lab, solution_functions
from grader.errors import GraderError
from grader.notebooks.coursedir import (
    CONFIG,
    BuiltAssignment,
    built_assignments,
    config_text,
    own_settings,
    write_manifest,
    write_source,
)


@dataclass
class BuildState:
    course: Course
    course_dir: Path
    console: Console
    only: list[str] | None = None
    leak_check: bool = True
    db_url: str | None = None  # --db: written to nbgrader_config.py
    new_gradebook: bool = False  # --new-gradebook: --db may leave the grades of the old gradebook behind
    gradebook: str = ""  # where the grades go, password masked
    ready: list[Assignment] = field(default_factory=list)
    built: list[BuiltAssignment] = field(default_factory=list)
    skipped: dict[str, str] = field(default_factory=dict)
    warnings: list[str] = field(default_factory=list)
    leaks: list = field(default_factory=list)


def not_ready(course: Course, assignment: Assignment) -> str | None:
    """Why ``assignment`` cannot be built yet, or None."""
    cache: dict[str, dict] = {}
    for e in assignment.exercises:
        path = course.solutions_dir / f"{e.module}.py"
        if not path.is_file():
            return f"solutions/{e.module}.py does not exist yet"
        if e.module not in cache:
            try:
                cache[e.module] = solution_functions(path)
            except SyntaxError as exc:
                return f"solutions/{e.module}.py:{exc.lineno}: syntax error"
        if e.function not in cache[e.module]:
            return f"{e.function} is not in solutions/{e.module}.py yet"
    if is_lab(assignment) and lab_source(course, assignment) is None:
        return f"no lab notebook at notebooks/{assignment.id}*.py yet"
    return None


class CheckReady:
    name = "check"

    def __call__(self, state: BuildState) -> None:
        ids = [a.id for a in state.course.assignments]
        for wanted in state.only or []:
            if wanted not in ids:
                raise GraderError(f"unknown assignment {wanted!r}; course.yaml defines: {', '.join(ids)}")
        for a in state.course.assignments:
            if state.only and a.id not in state.only:
                continue
            reason = not_ready(state.course, a)
            if reason:
                state.skipped[a.id] = reason
                continue
            state.ready.append(a)
            for e in a.exercises:
                if not state.course.hidden_test_file(e.function).is_file():
                    state.warnings.append(f"{a.id}: {e.function} has no hidden tests yet (it would score 0)")
        if not state.ready:
            raise GraderError("no assignment can be built: " + "; ".join(f"{k}: {v}" for k, v in state.skipped.items()))


class WriteNotebooks:
    name = "notebooks"

    def __call__(self, state: BuildState) -> None:
        prose = load_prose(state.course)
        for a in state.ready:
            nb = build_notebook(state.course, a, prose, state.warnings)
            state.built.append(write_source(state.course, state.course_dir, a, nb))
            write_rubrics(state.course, state.course_dir, a)  # beside formgrader, never under source/


class WriteConfig:
    name = "config"

    def __call__(self, state: BuildState) -> None:
        # Keep what earlier builds released (a build of one assignment must not forget the others).
        built = {b.id: b for b in state.built}
        for aid, previous in built_assignments(state.course_dir).items():
            if aid not in built and (state.course_dir / "source" / aid).is_dir():
                built[aid] = previous
        from grader.notebooks.gradebook import checked_url, course_gradebook

        if state.db_url:
            checked_url(state.db_url, "the --db value")
            if (state.course_dir / CONFIG).is_file() and not state.new_gradebook:
                grades_stay_behind(course_gradebook(state.course_dir), state.db_url)
        own = own_settings(state.course_dir, state.db_url)
        (state.course_dir / CONFIG).write_text(
            config_text(state.course, list(built.values()), state.course_dir, own), encoding="utf-8"
        )
        write_manifest(state.course, state.course_dir, list(built.values()), state.skipped)
        # Open the gradebook once here: a clear error before nbgrader runs, and the tables are
        # created by one process before any concurrent autograde.
        gradebook = course_gradebook(state.course_dir)
        with gradebook.open():
            pass
        state.gradebook = gradebook.shown


def grades_stay_behind(old, new_url: str) -> None:
    """Refuse to point the course at ``new_url`` while its grades are in ``old`` and ``new_url`` has none:
    they would silently stay behind (``grader gradebook copy`` takes them along)."""
    from grader.notebooks.gradebook import GradebookTarget

    if old.url == new_url:
        return
    if old.url.startswith("sqlite:///") and not Path(old.url[len("sqlite:///") :]).is_file():
        return  # no gradebook there yet (opening it would create one)

    def submissions(target) -> int:
        from nbgrader.api import SubmittedAssignment

        with target.open() as gb:
            return gb.db.query(SubmittedAssignment).count()

    held = submissions(old)
    new = GradebookTarget(new_url, old.course_id)
    if held and not submissions(new):
        copy = f"grader gradebook copy --from {old.shown} --to {new.shown}"  # another command's line
        empty = "--new-gradebook"  # `grader build`'s own option (build_course's new_gradebook)
        raise GraderError(
            f"the course's grades are in {old.shown} ({held} submission(s)) and {new.shown} has "
            f"none: they would stay behind. Copy them first: `{copy}`, then run this again (or add "
            f"{empty} to start empty)"
        )


class Release:
    name = "release"

    def __call__(self, state: BuildState) -> None:
        ids = sorted(b.id for b in state.built)
        sources = sorted(p.name for p in (state.course_dir / "source").iterdir() if p.is_dir())
        # One nbgrader process for the whole course when possible: its start-up dominates.
        for pattern in ["*"] if ids == sources else ids:
            run_nbgrader(state.course_dir, "generate_assignment", pattern, "--force")
        from grader.notebooks.gradebook import course_gradebook, set_due_dates

        with course_gradebook(state.course_dir).open() as gb:  # course.yaml's due dates, for nbgrader
            set_due_dates(gb, {a.id: state.course.due_utc(a.id) for a in state.course.assignments})


class WriteKits:
    """The student kits (:mod:`grader.build.kit`): per assignment built, and the whole module when all are."""

    name = "kits"

    def __call__(self, state: BuildState) -> None:
        built = [b.id for b in state.built]
        every = {a.id for a in state.course.assignments} <= set(built)
        write_kits(state.course, state.course_dir, None if every else built)


class LeakCheck:
    name = "leaks"

    def __call__(self, state: BuildState) -> None:
        if not state.leak_check:
            return

        state.leaks = check_leaks(state.course, state.course_dir)


BUILD_STEPS = (CheckReady(), WriteNotebooks(), WriteConfig(), Release(), WriteKits(), LeakCheck())


def build_course(
    course: Course,
    course_dir: Path,
    *,
    only: list[str] | None = None,
    leak_check: bool = True,
    db_url: str | None = None,
    console: Console | None = None,
    steps=BUILD_STEPS,
    new_gradebook: bool = False,
) -> BuildState:
    """Run the build pipeline; the state says what was built, skipped and found.

    ``db_url`` becomes the gradebook of nbgrader_config.py; without it the configured one stays.
    A ``db_url`` that would leave the grades of the configured gradebook behind is refused unless
    ``new_gradebook``.
    """
    state = BuildState(
        course=course,
        course_dir=Path(course_dir).resolve(),
        console=console or Console(),
        only=only,
        leak_check=leak_check,
        db_url=db_url,
        new_gradebook=new_gradebook,
    )
    state.course_dir.mkdir(parents=True, exist_ok=True)
    for step in steps:
        with state.console.status(f"{step.name} ..."):
            step(state)
    return state
