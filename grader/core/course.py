"""Load and validate course.yaml, the single description of the course.

Validation works on the YAML node tree, so every error names the file, the line
and the key, e.g. ``course.yaml:23: assignments[0].exercises[1]: unknown key 'pointz'``.
The written questions an assignment asks are read here too (``autograder-tests/written.yaml``,
:func:`questions_of`): loading a course checks that each exists; the build makes their cells.
"""

from __future__ import annotations

import ast
import importlib.util
import json
import re
import sys
from dataclasses import dataclass, field
from datetime import date, datetime, time, timezone
from functools import cached_property
from pathlib import Path
from types import ModuleType
from typing import Any, Callable
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

import yaml

from grader import edition
from grader.core.extensions import Extensions, extensions_of, lms_columns_of
from grader.errors import CourseError

COURSE_FILE = "course.yaml"
# In a student kit's course: which kit it is, its own assignments, the course-provided files (grader build).
KIT_MANIFEST = "kit.json"
IDENTIFIER = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")
BEGIN_SOLUTION = "### BEGIN SOLUTION"
END_SOLUTION = "### END SOLUTION"


@dataclass(frozen=True)
class Tolerance:
    rtol: float
    atol: float


@dataclass(frozen=True)
class Exercise:
    function: str
    module: str
    points: float
    time_limit: float
    tolerance: Tolerance
    visible: bool
    assignment: str
    kind: str = "function"
    params: dict = field(default_factory=dict, hash=False, compare=False)


EXERCISE_KINDS = ("function", "lab", "answer")
SANDBOX_KEYS = (
    "memory_mb",
    "cpu_seconds",
    "processes",
    "file_size_mb",
    "open_files",
    "output_kb",
    "reply_kb",
    "submission_seconds",
)
# When Gradescope shows students the results of the hidden tests (its "visibility" values).
GRADESCOPE_VISIBILITIES = ("hidden", "after_due_date", "after_published", "visible")
GRADESCOPE_KEYS = ("visibility",)
DEFAULT_GRADESCOPE = {"visibility": "after_published"}
# The course's calendar: the time zone of times written without one (due dates, an LMS download's)
# and the late policy; each assignment may have a `due` date.
CALENDAR_KEYS = ("time_zone", "late_policy", "extensions")
TOP_KEYS = ("defaults", "sandbox", "gradescope", "calendar", "lms")  # besides course and assignments
LATE_POLICY_KEYS = ("per_day", "zero_after_days")
# Optional written answers (off by default): questions of autograder-tests/written.yaml that an assignment
# turns into nbgrader manually graded answer cells; the rubric stays with the graders.
WRITTEN_FILE = "written.yaml"
WRITTEN_KEYS = ("question", "points")


@dataclass(frozen=True)
class Written:
    """A written question graded by hand: ``question`` names an entry of autograder-tests/written.yaml."""

    question: str
    points: float
    assignment: str

    @property
    def grade_id(self) -> str:
        return f"written_{self.question}"


@dataclass(frozen=True)
class Assignment:
    id: str
    title: str
    exercises: tuple[Exercise, ...]
    due: datetime | None = None  # in the course's time zone (calendar.time_zone)
    written: tuple[Written, ...] = ()  # manually graded answer cells (course.yaml assignments[].written)

    @property
    def points(self) -> float:
        """The assignment's maximum: its exercises and its written answers."""
        return sum(e.points for e in self.exercises) + sum(w.points for w in self.written)

    @property
    def modules(self) -> list[str]:
        return list(dict.fromkeys(e.module for e in self.exercises))


def is_lab(assignment: Assignment) -> bool:
    """Is ``assignment`` a lab (a notebook of its own, graded with its .py modules)?"""
    return any(e.kind == "lab" for e in assignment.exercises)


@dataclass(frozen=True)
class Course:
    root: Path
    id: str
    title: str
    module_number: int
    module_title: str
    time_limit: float
    tolerance: Tolerance
    property_examples: int
    assignments: tuple[Assignment, ...]
    sandbox: dict = field(default_factory=dict, hash=False, compare=False)
    gradescope: dict = field(default_factory=lambda: dict(DEFAULT_GRADESCOPE), hash=False, compare=False)
    time_zone: str = "UTC"  # calendar.time_zone: of times written without one (due dates, LMS downloads)
    # calendar.late_policy: {per_day: fraction of the score per started day late, zero_after_days: N};
    # empty: no penalty (nbgrader's default)
    late_policy: dict = field(default_factory=dict, hash=False, compare=False)
    extensions: Extensions = field(default=Extensions(), hash=False, compare=False)  # grader.core.extensions
    lms_columns: dict = field(default_factory=dict, hash=False, compare=False)
    _references: dict = field(default_factory=dict, repr=False, compare=False)

    # -- paths -----------------------------------------------------------------
    @property
    def course_file(self) -> Path:
        return self.root / COURSE_FILE

    @property
    def solutions_dir(self) -> Path:
        return self.root / "solutions"

    @property
    def exercises_dir(self) -> Path:
        return self.root / "exercises"

    @property
    def tests_dir(self) -> Path:
        return self.root / "autograder-tests"

    @property
    def hidden_tests_dir(self) -> Path:
        return self.tests_dir / "hidden"

    @property
    def visible_tests_dir(self) -> Path:
        return self.tests_dir / "visible"

    # -- lookups ---------------------------------------------------------------
    # The course is immutable, so its derived views are computed once: exercise() is
    # asked twice per call across the worker boundary, a thousand times per student.
    @cached_property
    def exercises(self) -> tuple[Exercise, ...]:
        return tuple(e for a in self.assignments for e in a.exercises)

    @cached_property
    def functions(self) -> tuple[str, ...]:
        return tuple(e.function for e in self.exercises)

    @cached_property
    def modules(self) -> tuple[str, ...]:
        return tuple(dict.fromkeys(e.module for e in self.exercises))

    @cached_property
    def _by_function(self) -> dict[str, Exercise]:
        return {e.function: e for e in self.exercises}

    def exercise(self, function: str) -> Exercise:
        return self._by_function[function]

    def assignment(self, assignment_id: str) -> Assignment:
        for a in self.assignments:
            if a.id == assignment_id:
                return a
        known = ", ".join(a.id for a in self.assignments)
        raise CourseError(f"unknown assignment {assignment_id!r}; course.yaml defines: {known}")

    def due_utc(self, assignment_id: str, student: str | None = None) -> datetime | None:
        """The due date of an assignment (``student``'s own: calendar.extensions) in UTC, without a zone."""
        due = self.extensions.due(assignment_id, student) or self.assignment(assignment_id).due
        if due is None:
            return None
        return due.replace(tzinfo=ZoneInfo(self.time_zone)).astimezone(timezone.utc).replace(tzinfo=None)

    @property
    def written_file(self) -> Path:
        """The written questions and their rubrics (graders only: beside the hidden tests, never copied to
        exercises/, a kit or a sandbox as solutions/ files are)."""
        return self.tests_dir / WRITTEN_FILE

    def hidden_test_file(self, function: str) -> Path:
        return self.hidden_tests_dir / f"test_{function}.py"

    def visible_test_file(self, function: str) -> Path:
        return self.visible_tests_dir / f"test_{function}.py"

    def reference_module(self, module: str) -> ModuleType:
        """Import ``solutions/<module>.py`` into this (trusted) process, once."""
        if module not in self._references:
            path = self.solutions_dir / f"{module}.py"
            name = f"_reference_solutions.{module}"
            spec = importlib.util.spec_from_file_location(name, path)
            mod = importlib.util.module_from_spec(spec)
            sys.modules[name] = mod
            spec.loader.exec_module(mod)
            self._references[module] = mod
        return self._references[module]

    def released_module(self, module: str) -> ModuleType:
        """Import ``exercises/<module>.py``, course-provided code as students receive it (a lab's training
        loop, the environment), into this (trusted) process, once. The visible tests use it: they run in a
        student kit too, which has no solutions/. A module of exercises is refused (it holds stubs)."""
        if any(e.module == module and e.kind != "lab" for e in self.exercises):
            raise CourseError(f"{module}.py holds exercises: the students write it, it is not course code")
        key = f"released:{module}"
        if key not in self._references:
            path = self.exercises_dir / f"{module}.py"
            if not path.is_file():
                raise CourseError(f"the course's {module}.py is not in {self.exercises_dir}")
            name = f"_released_course_code.{module}"
            spec = importlib.util.spec_from_file_location(name, path)
            mod = importlib.util.module_from_spec(spec)
            sys.modules[name] = mod
            spec.loader.exec_module(mod)
            self._references[key] = mod
        return self._references[key]

    def reference(self, function: str) -> Callable[..., Any]:
        return getattr(self.reference_module(self.exercise(function).module), function)


# -- discovery -----------------------------------------------------------------
def find_course_root(start: Path | None = None) -> Path:
    """The nearest directory at or above ``start`` (default: cwd) holding course.yaml, else the installed
    student kit's course (a command's ``--course``, or ``$GRADER_COURSE``, names one instead)."""
    here = (start or Path.cwd()).resolve()
    kit = installed_kit()
    if edition.STUDENT and kit is not None:  # a kit's checker checks its own course, wherever it runs
        return kit
    for candidate in [here, *here.parents]:
        if (candidate / COURSE_FILE).is_file():
            return candidate
    if kit is not None:
        return kit
    raise CourseError(
        f"no {COURSE_FILE} found in {here} or its parents; run inside the course repository or pass --course DIR"
    )


def installed_kit() -> Path | None:
    """The course of an installed student kit (``grader build`` writes it), or None."""
    spec = importlib.util.find_spec("rl_llm_m4_kit")
    if spec is None or not spec.submodule_search_locations:
        return None
    root = Path(list(spec.submodule_search_locations)[0]) / "course"
    return root if (root / COURSE_FILE).is_file() else None


def kit_manifest(root: Path) -> dict:
    """What ``grader build`` wrote about a student kit's course (:data:`KIT_MANIFEST`): ``kit`` (its id),
    ``assignments`` (the kit's own; its course.yaml may also hold those whose modules its lab runs) and
    ``provided`` (the course-provided files, relative to exercises/). Empty for any other course."""
    path = Path(root) / KIT_MANIFEST
    if not is_kit(root) or not path.is_file():
        return {}
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except ValueError as exc:
        raise CourseError(f"{path}: not valid JSON ({exc}); reinstall the kit") from None
    return data if isinstance(data, dict) else {}


def is_kit(root: Path) -> bool:
    """A student kit's course: no solutions/ (the checker runs the visible tests only)."""
    return not (Path(root) / "solutions").is_dir() and (Path(root) / "exercises").is_dir()


def load_course(root: Path | str | None = None, *, check_files: bool = True, check_tests: bool = True) -> Course:
    """Load and validate ``<root>/course.yaml``.

    Parameters
    ----------
    root : path, optional
        Course directory; found with :func:`find_course_root` when omitted.
    check_files : bool
        Also check that every function exists in ``solutions/`` with a solution region.
    check_tests : bool
        With ``check_files``, also check that every function has its hidden (and, when
        ``visible``, visible) test file.

    Raises
    ------
    CourseError
        With ``file:line: key: problem`` for the first problem found.
    """
    root = Path(root).resolve() if root is not None else find_course_root()
    path = root / COURSE_FILE
    if not path.is_file():
        raise CourseError(f"{path}: file not found")
    text = path.read_text(encoding="utf-8")
    try:
        node = yaml.compose(text, Loader=yaml.SafeLoader)
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        where = f"{path.name}:{mark.line + 1}" if mark else path.name
        raise CourseError(f"{where}: not valid YAML: {getattr(exc, 'problem', exc)}") from None
    if node is None:
        raise CourseError(f"{path.name}:1: the file is empty")
    course = _Validator(path, root).course(node)
    if check_files and not is_kit(root):  # a kit has no solutions and no hidden tests to check
        _check_files(course, path, node, check_tests)
    return course


# -- validation on the node tree -------------------------------------------------
class _Validator:
    def __init__(self, path: Path, root: Path):
        self.path = path
        self.root = root
        self._loader = yaml.SafeLoader("")

    def fail(self, node: yaml.Node, key: str, problem: str) -> CourseError:
        return CourseError(f"{self.path.name}:{node.start_mark.line + 1}: {key}: {problem}")

    def mapping(self, node, key, required, optional=()) -> dict[str, yaml.Node]:
        if not isinstance(node, yaml.MappingNode):
            raise self.fail(node, key, "must be a mapping")
        found: dict[str, yaml.Node] = {}
        allowed = list(required) + list(optional)
        for k_node, v_node in node.value:
            k = k_node.value
            if k not in allowed:
                raise self.fail(
                    k_node, f"{key}.{k}" if key else k, f"unknown key {k!r} (allowed: {', '.join(allowed)})"
                )
            if k in found:
                raise self.fail(k_node, f"{key}.{k}" if key else k, "duplicate key")
            found[k] = v_node
        for k in required:
            if k not in found:
                raise self.fail(node, key or "top level", f"missing required key {k!r}")
        return found

    def scalar(self, node, key, kind):
        if not isinstance(node, yaml.ScalarNode):
            raise self.fail(node, key, f"must be a {kind.__name__}")
        value = self._loader.construct_object(node)
        is_bool = isinstance(value, bool)
        if kind is float and isinstance(value, int) and not is_bool:
            value = float(value)
        if kind is str and isinstance(value, (int, float)) and not is_bool:
            value = node.value
        if not isinstance(value, kind) or (kind is not bool and is_bool):
            raise self.fail(node, key, f"must be a {kind.__name__}, got {node.value!r}")
        return value

    def number(self, node, key, *, minimum=None, positive=False) -> float:
        value = self.scalar(node, key, float)
        if value != value:  # NaN
            raise self.fail(node, key, "must be a number")
        if positive and not value > 0:
            raise self.fail(node, key, f"must be positive, got {value:g}")
        if minimum is not None and value < minimum:
            raise self.fail(node, key, f"must be at least {minimum:g}, got {value:g}")
        return value

    def identifier(self, node, key) -> str:
        value = self.scalar(node, key, str)
        if not IDENTIFIER.match(value):
            raise self.fail(node, key, f"{value!r} is not a valid Python identifier")
        return value

    def tolerance(self, node, key, default: Tolerance | None) -> Tolerance:
        fields = self.mapping(
            node, key, required=() if default else ("rtol", "atol"), optional=("rtol", "atol") if default else ()
        )
        rtol = self.number(fields["rtol"], f"{key}.rtol", minimum=0) if "rtol" in fields else default.rtol
        atol = self.number(fields["atol"], f"{key}.atol", minimum=0) if "atol" in fields else default.atol
        return Tolerance(rtol, atol)

    def late_policy(self, node) -> dict:
        """``none``, ``zero``, or ``{per_day: F, zero_after_days: N}`` -> {per_day, zero_after_days} or {}."""
        key = "calendar.late_policy"
        if isinstance(node, yaml.ScalarNode):
            value = self.scalar(node, key, str)
            if value not in ("none", "zero"):
                raise self.fail(node, key, f"{value!r}: one of none, zero, or {{per_day: 0.1, zero_after_days: 5}}")
            return {} if value == "none" else {"per_day": 1.0, "zero_after_days": 0.0}
        fields = self.mapping(node, key, required=("per_day",), optional=("zero_after_days",))
        per_day = self.number(fields["per_day"], f"{key}.per_day", positive=True)
        if per_day > 1:
            raise self.fail(
                fields["per_day"], f"{key}.per_day", f"a fraction of the score (at most 1), got {per_day:g}"
            )
        after = (
            self.number(fields["zero_after_days"], f"{key}.zero_after_days", minimum=0)
            if "zero_after_days" in fields
            else 0.0
        )
        return {"per_day": per_day, "zero_after_days": after}

    def written(self, node, key: str, assignment: str) -> tuple[Written, ...]:
        """``[{question: ID, points: N}, ...]``: written questions graded by hand in formgrader."""
        if not isinstance(node, yaml.SequenceNode):
            raise self.fail(node, key, "must be a list of {question: ID, points: N}")
        out, seen = [], set()
        for i, item in enumerate(node.value):
            fields = self.mapping(item, f"{key}[{i}]", required=WRITTEN_KEYS)
            question = self.identifier(fields["question"], f"{key}[{i}].question")
            if question in seen:
                raise self.fail(fields["question"], f"{key}[{i}].question", f"question {question!r} appears twice")
            seen.add(question)
            out.append(
                Written(question, self.number(fields["points"], f"{key}[{i}].points", positive=True), assignment)
            )
        return tuple(out)

    def due(self, node, key: str) -> datetime:
        value = self._loader.construct_object(node) if isinstance(node, yaml.ScalarNode) else None
        if isinstance(value, str):
            try:
                value = datetime.fromisoformat(value.strip())
            except ValueError:
                value = None
        if isinstance(value, date) and not isinstance(value, datetime):
            value = datetime.combine(value, time(23, 59, 59))  # a day: the end of it
        if not isinstance(value, datetime):
            raise self.fail(
                node,
                key,
                f"not a date and time: {getattr(node, 'value', node)!r} "
                '(e.g. "2026-12-08 23:59", in calendar.time_zone)',
            )
        if value.tzinfo is not None:
            raise self.fail(node, key, "give the time without a zone: calendar.time_zone says which")
        return value

    def course(self, node) -> Course:
        """The whole course.yaml, in its sections' order (the first problem found is the one reported)."""
        top = self.mapping(node, "", required=("course", "assignments"), optional=TOP_KEYS)
        time_zone, late_policy, calendar = self.calendar(top["calendar"]) if "calendar" in top else ("UTC", {}, {})
        sandbox = self.sandbox(top["sandbox"]) if "sandbox" in top else {}
        gradescope = self.gradescope(top["gradescope"]) if "gradescope" in top else dict(DEFAULT_GRADESCOPE)
        meta = self.mapping(top["course"], "course", required=("id", "title", "module", "module_title"))
        time_limit, tolerance, examples = self.defaults(top.get("defaults"))
        assignments = self.assignments(top["assignments"], time_limit, tolerance)
        return Course(
            root=self.root,
            id=self.scalar(meta["id"], "course.id", str),
            title=self.scalar(meta["title"], "course.title", str),
            module_number=self.scalar(meta["module"], "course.module", int),
            module_title=self.scalar(meta["module_title"], "course.module_title", str),
            time_limit=time_limit,
            tolerance=tolerance,
            property_examples=examples,
            assignments=assignments,
            sandbox=sandbox,
            gradescope=gradescope,
            time_zone=time_zone,
            late_policy=late_policy,
            extensions=extensions_of(self, calendar.get("extensions"), {a.id for a in assignments}),
            lms_columns=lms_columns_of(self, top.get("lms"), {a.id for a in assignments}),
        )

    def calendar(self, node) -> tuple[str, dict, dict]:
        """``calendar:``: (its time zone, its late policy, its fields: the extensions are read with the
        assignments' ids)."""
        time_zone, late_policy = "UTC", {}
        calendar = self.mapping(node, "calendar", required=(), optional=CALENDAR_KEYS)
        if "time_zone" in calendar:
            v = calendar["time_zone"]
            time_zone = self.scalar(v, "calendar.time_zone", str)
            try:
                ZoneInfo(time_zone)
            except (ZoneInfoNotFoundError, ValueError):
                raise self.fail(
                    v,
                    "calendar.time_zone",
                    f"unknown time zone {time_zone!r} (an IANA name such as Europe/Paris or UTC)",
                ) from None
        if "late_policy" in calendar:
            late_policy = self.late_policy(calendar["late_policy"])
        return time_zone, late_policy, calendar

    def sandbox(self, node) -> dict:
        """``sandbox:``: its limits, and whether it is required."""
        sandbox = {}
        fields = self.mapping(node, "sandbox", required=(), optional=SANDBOX_KEYS + ("require",))
        for k, v in fields.items():
            sandbox[k] = (
                self.scalar(v, f"sandbox.{k}", bool)
                if k == "require"
                else self.number(v, f"sandbox.{k}", positive=True)
            )
        return sandbox

    def gradescope(self, node) -> dict:
        """``gradescope:``: the visibilities, over the defaults."""
        gradescope = dict(DEFAULT_GRADESCOPE)
        for k, v in self.mapping(node, "gradescope", required=(), optional=GRADESCOPE_KEYS).items():
            gradescope[k] = self.scalar(v, f"gradescope.{k}", str)
            if gradescope[k] not in GRADESCOPE_VISIBILITIES:
                raise self.fail(
                    v,
                    f"gradescope.{k}",
                    f"unknown visibility {gradescope[k]!r} (one of: {', '.join(GRADESCOPE_VISIBILITIES)})",
                )
        return gradescope

    def defaults(self, node) -> tuple[float, Tolerance, int]:
        """``defaults:`` (None: absent): the time limit, tolerance and property examples of every exercise."""
        defaults = {}
        if node is not None:
            defaults = self.mapping(
                node, "defaults", required=(), optional=("time_limit", "tolerance", "property_examples")
            )
        time_limit = (
            self.number(defaults["time_limit"], "defaults.time_limit", positive=True)
            if "time_limit" in defaults
            else 10.0
        )
        tolerance = (
            self.tolerance(defaults["tolerance"], "defaults.tolerance", None)
            if "tolerance" in defaults
            else Tolerance(1e-6, 1e-9)
        )
        examples = 30
        if "property_examples" in defaults:
            examples = self.scalar(defaults["property_examples"], "defaults.property_examples", int)
            if examples < 1:
                raise self.fail(defaults["property_examples"], "defaults.property_examples", "must be at least 1")
        return time_limit, tolerance, examples

    def assignments(self, node, time_limit: float, tolerance: Tolerance) -> tuple[Assignment, ...]:
        """``assignments:``, each with its exercises (ids and functions once each in the course)."""
        if not isinstance(node, yaml.SequenceNode) or not node.value:
            raise self.fail(node, "assignments", "must be a non-empty list")
        assignments = []
        seen_ids: set[str] = set()
        seen_functions: set[str] = set()
        for i, a_node in enumerate(node.value):
            key = f"assignments[{i}]"
            a = self.mapping(a_node, key, required=("id", "title", "exercises"), optional=("due", "written"))
            a_id = self.identifier(a["id"], f"{key}.id")
            if a_id in seen_ids:
                raise self.fail(a["id"], f"{key}.id", f"duplicate assignment id {a_id!r}")
            seen_ids.add(a_id)
            ex_node = a["exercises"]
            if not isinstance(ex_node, yaml.SequenceNode) or not ex_node.value:
                raise self.fail(ex_node, f"{key}.exercises", "must be a non-empty list")
            exercises = [
                self.exercise(e_node, f"{key}.exercises[{j}]", a_id, (time_limit, tolerance), seen_functions)
                for j, e_node in enumerate(ex_node.value)
            ]
            written = self.written(a["written"], f"{key}.written", a_id) if "written" in a else ()
            assignments.append(
                Assignment(
                    a_id,
                    self.scalar(a["title"], f"{key}.title", str),
                    tuple(exercises),
                    self.due(a["due"], f"{key}.due") if "due" in a else None,
                    written,
                )
            )
        return tuple(assignments)

    def exercise(self, node, key: str, assignment: str, defaults: tuple, seen_functions: set[str]) -> Exercise:
        """One exercise of ``assignment``; ``defaults``: the course's (time limit, tolerance); its function is
        added to ``seen_functions`` (a function appears once in a course)."""
        time_limit, tolerance = defaults
        e = self.mapping(
            node,
            key,
            required=("function", "module", "points"),
            optional=("time_limit", "tolerance", "visible", "kind", "params"),
        )
        kind = self.scalar(e["kind"], f"{key}.kind", str) if "kind" in e else "function"
        if kind not in EXERCISE_KINDS:
            raise self.fail(e["kind"], f"{key}.kind", f"unknown kind {kind!r} (one of: {', '.join(EXERCISE_KINDS)})")
        params = {}
        if "params" in e:
            if not isinstance(e["params"], yaml.MappingNode):
                raise self.fail(e["params"], f"{key}.params", "must be a mapping")
            params = self._loader.construct_mapping(e["params"], deep=True)
        function = self.identifier(e["function"], f"{key}.function")
        if function in seen_functions:
            raise self.fail(e["function"], f"{key}.function", f"function {function!r} appears twice")
        seen_functions.add(function)
        return Exercise(
            function=function,
            module=self.identifier(e["module"], f"{key}.module"),
            points=self.number(e["points"], f"{key}.points", minimum=0),
            time_limit=self.number(e["time_limit"], f"{key}.time_limit", positive=True)
            if "time_limit" in e
            else time_limit,
            tolerance=self.tolerance(e["tolerance"], f"{key}.tolerance", tolerance) if "tolerance" in e else tolerance,
            visible=self.scalar(e["visible"], f"{key}.visible", bool) if "visible" in e else True,
            assignment=assignment,
            kind=kind,
            params=params,
        )


def solution_functions(path: Path) -> dict[str, bool]:
    """Top-level names of a solutions module (functions, classes, assigned constants),
    each mapped to 'its definition holds a solution region'."""
    source = path.read_text(encoding="utf-8")
    tree = ast.parse(source, filename=str(path))
    lines = source.splitlines()
    found = {}
    for node in tree.body:
        if isinstance(node, (ast.FunctionDef, ast.ClassDef)):
            body = lines[node.lineno - 1 : node.end_lineno]
            found[node.name] = any(line.strip() == BEGIN_SOLUTION for line in body)
        elif isinstance(node, (ast.Assign, ast.AnnAssign)):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            for target in targets:
                if isinstance(target, ast.Name):
                    found.setdefault(target.id, False)
    return found


def module_regions(lines: list[str]) -> list[tuple[int, int]]:
    """1-based (BEGIN, END) lines of the solution regions at module level (answer sheets).

    A module-level region's markers have no indentation.
    """
    regions, begin = [], None
    for number, line in enumerate(lines, start=1):
        if line.rstrip() == BEGIN_SOLUTION:
            begin = number
        elif line.rstrip() == END_SOLUTION and begin is not None:
            regions.append((begin, number))
            begin = None
    return regions


def answer_names(path: Path) -> set[str]:
    """Names assigned at module level inside a module-level solution region (answer constants)."""
    source = path.read_text(encoding="utf-8")
    tree = ast.parse(source, filename=str(path))
    regions = module_regions(source.splitlines())
    names = set()
    for node in tree.body:
        if isinstance(node, (ast.Assign, ast.AnnAssign)) and any(b < node.lineno < e for b, e in regions):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            names.update(t.id for t in targets if isinstance(t, ast.Name))
    return names


def _exercise_nodes(root_node) -> dict[str, yaml.Node]:
    """function name -> its YAML node, to point errors at the right line."""
    nodes = {}
    for k, v in root_node.value:
        if k.value == "assignments":
            for a in v.value:
                for ak, av in a.value:
                    if ak.value == "exercises":
                        for e in av.value:
                            for ek, ev in e.value:
                                if ek.value == "function":
                                    nodes[ev.value] = ev
    return nodes


def _check_files(course: Course, path: Path, node, check_tests: bool = True) -> None:
    if any(a.written for a in course.assignments):
        for a in course.assignments:
            questions_of(course, a)  # each written question exists, with its rubric
    nodes = _exercise_nodes(node)
    cache: dict[str, dict[str, bool]] = {}
    for i, a in enumerate(course.assignments):
        for j, e in enumerate(a.exercises):
            key = f"assignments[{i}].exercises[{j}].function"
            line = nodes[e.function].start_mark.line + 1
            where = f"{path.name}:{line}: {key}"
            module_path = course.solutions_dir / f"{e.module}.py"
            if e.module not in cache:
                if not module_path.is_file():
                    raise CourseError(f"{where}: module {e.module!r} has no file solutions/{e.module}.py")
                try:
                    cache[e.module] = solution_functions(module_path)
                except SyntaxError as exc:
                    raise CourseError(f"solutions/{e.module}.py:{exc.lineno}: syntax error: {exc.msg}") from None
            functions = cache[e.module]
            if e.function not in functions:
                raise CourseError(f"{where}: function {e.function!r} does not exist in solutions/{e.module}.py")
            if e.kind == "function" and not functions[e.function]:
                raise CourseError(
                    f"{where}: solutions/{e.module}.py defines {e.function!r} without a {BEGIN_SOLUTION} region"
                )
            if e.kind == "answer" and e.function not in answer_names(module_path):
                raise CourseError(
                    f"{where}: the answer {e.function!r} must be assigned at module level "
                    f"inside a {BEGIN_SOLUTION} region of solutions/{e.module}.py"
                )
            if check_tests and not course.hidden_test_file(e.function).is_file():
                raise CourseError(f"{where}: no hidden tests at autograder-tests/hidden/test_{e.function}.py")
            if check_tests and e.visible and not course.visible_test_file(e.function).is_file():
                raise CourseError(
                    f"{where}: 'visible' is true but autograder-tests/visible/test_{e.function}.py does not exist"
                )


# -- written questions (autograder-tests/written.yaml; the build makes their cells, grader/build/written.py) --
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
            if (
                not isinstance(item, dict)
                or not isinstance(item.get("criterion"), str)
                or set(item) - {"criterion", "share"}
            ):
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
            raise CourseError(
                f"course.yaml: {assignment.id}.written: no question {w.question!r} in "
                f"autograder-tests/{course.written_file.name} (it has: {have})"
            )
        out.append((w, known[w.question]))
    return out
