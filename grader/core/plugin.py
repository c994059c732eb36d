"""pytest plugin: runs the autograder tests against submissions behind the boundary.

Loaded by ``autograder-tests/conftest.py``. Each test asks for the ``impl``
fixture; the plugin parametrizes it over the submissions being graded (one worker
per submission, torn down before the next starts) and turns every test report
into a :class:`TestOutcome` with a message for people.

Run directly by course developers::

    pytest autograder-tests/hidden                        # against solutions/
    pytest autograder-tests/hidden --submission exercises # against the stubs
"""

from __future__ import annotations

import time
from pathlib import Path
from typing import Callable

import numpy as np
import pytest

from grader import testing
from grader.core.course import Course, find_course_root, load_course
from grader.core.diagnosis import (EVIDENCE_BYTES, PASSED_PER_TEST, SUBMISSION_EVIDENCE_BYTES, Call, Raised,
                                    call_bytes, causes_named, diagnose, evidenced, explained, known_mistakes,
                                    observations, observe, remembered)
from grader.core.results import KINDS, SubmissionResult, TestOutcome, score_function
from grader.worker.client import WorkerStartError
from grader.core.submission import (
    FunctionUnavailable,
    Implementation,
    StudentError,
    Submission,
    UnsupportedReturn,
)


class Collector:
    """Holds the submissions of one pytest session and the outcomes of their tests."""

    def __init__(self, course: Course, submissions: dict[str, Path], *, launcher=None,
                 only: list[str] | None = None,
                 on_result: Callable[[str, SubmissionResult], None] | None = None,
                 only_for: dict[str, list[str]] | None = None):
        self.course = course
        self.submissions = {sid: Path(p) for sid, p in submissions.items()}
        self.launcher = launcher
        self.only = list(only) if only else None
        # Per-submission restriction (e.g. a wrong implementation is graded on its function only).
        self.only_for = {sid: set(fs) for sid, fs in (only_for or {}).items()}
        self.on_result = on_result
        self.outcomes: dict[str, dict[str, list[TestOutcome]]] = {sid: {} for sid in submissions}
        # The calls each function answered during its hidden tests, by outcome of the test (all of a
        # failed test's, the first of a passed test's): {sid: {function: {"failed": [...], "passed":
        # [...]}}}, the evidence of diagnose().
        self.calls: dict[str, dict[str, dict[str, list[Call]]]] = {sid: {} for sid in submissions}
        self.open: dict[str, Submission] = {}
        self.started: dict[str, float] = {}
        self.results: dict[str, SubmissionResult] = {}
        self.collection_errors: list[str] = []
        # Submissions that could not be graded for the grader's own trouble (a worker that
        # would not start): they get no result, never a grade of zero.
        self.infrastructure_errors: dict[str, str] = {}

    def reset(self, sid: str, path: Path, only: list[str] | None = None) -> None:
        """Grade ``path`` as submission ``sid`` from now on, forgetting everything of the last one."""
        self.submissions[sid] = Path(path)
        self.only_for.pop(sid, None)
        if only:
            self.only_for[sid] = set(only)
        self.outcomes[sid], self.calls[sid] = {}, {}
        for per_submission in (self.results, self.open, self.started, self.infrastructure_errors):
            per_submission.pop(sid, None)

    @property
    def functions(self) -> list[str]:
        return [f for f in self.course.functions if self.only is None or f in self.only]

    def functions_of(self, sid: str) -> list[str]:
        wanted = self.only_for.get(sid)
        return [f for f in self.functions if wanted is None or f in wanted]

    def submissions_for(self, function: str) -> list[str]:
        return [sid for sid in self.submissions if function in self.functions_of(sid)]

    def open_submission(self, sid: str) -> Submission:
        submission = Submission(self.submissions[sid], self.course, launcher=self.launcher)
        self.open[sid] = submission
        self.started[sid] = time.monotonic()
        return submission

    def close_submission(self, sid: str) -> None:
        submission = self.open.pop(sid)
        submission.close()
        if sid in self.infrastructure_errors:
            return
        self.results[sid] = self._result(sid, submission)
        if self.on_result is not None:
            self.on_result(sid, self.results[sid])

    def record(self, sid: str, function: str, outcome: TestOutcome, calls: list[Call] = (),
               relation: bool = False, claims: bool = True) -> None:
        """Keep a test's outcome and the calls it made; ``relation``: it failed on a relation between the
        student's own answers (grader.testing.Evidenced), which is evidence of the cause it names;
        ``claims``: its message is a check's text, which may name a cause (not the student's own error)."""
        self.outcomes[sid].setdefault(function, []).append(outcome)
        evidence = self.calls[sid].setdefault(function, self._no_evidence())
        # Kept until the submission's result is built: bounded per function and per submission.
        held = sum(e["bytes"] for e in self.calls[sid].values())
        kept = []
        for call in (calls[:PASSED_PER_TEST] if outcome.passed else calls):
            size = call_bytes(call)
            if evidence["bytes"] + size > EVIDENCE_BYTES or held + size > SUBMISSION_EVIDENCE_BYTES:
                break  # the diagnosis works from the calls kept so far
            evidence["bytes"] += size
            held += size
            kept.append(call)
        if outcome.passed:
            evidence["passed"].extend(kept)
        else:
            evidence["failed"].extend(kept)
            evidence["tests"].append((outcome, kept, relation, claims))
            if outcome.kind == "contract":
                evidence["checks"].extend(kept)

    @staticmethod
    def _no_evidence() -> dict:
        return {"failed": [], "passed": [], "checks": [], "tests": [], "bytes": 0}

    def _result(self, sid: str, submission: Submission) -> SubmissionResult:
        functions = {}
        for function in self.functions_of(sid):
            tests = self.outcomes[sid].get(function, [])
            state = submission.states.get(function)
            error = error_kind = None
            if state is not None and state.unavailable is not None:
                error, error_kind = state.unavailable.reason, state.unavailable.kind
            elif state is not None and state.not_implemented and tests and not any(t.passed for t in tests):
                error = "not implemented"
            evidence = self.calls[sid].pop(function, self._no_evidence())
            found = None
            # Past the submission's deadline no diagnosis runs: it is advice, and the grader's own time.
            if error is None and not submission.expired:
                try:
                    found = self._diagnosis(function, tests, evidence)
                except Exception:  # noqa: BLE001 - advice about the student's values, never the grade
                    # The diagnosis reads the student's values (an int of 400 digits overflowed
                    # float); it must not take the tests' outcomes and limit events with it.
                    found = None
            functions[function] = score_function(self.course, function, tests, error, error_kind, found)
        return SubmissionResult(submission=str(self.submissions[sid]), functions=functions,
                                elapsed=time.monotonic() - self.started.get(sid, time.monotonic()))

    def _diagnosis(self, function: str, tests: list[TestOutcome], evidence: dict) -> tuple | None:
        """(mistake, message, causes) to read first; None when nothing failed in the values.

        A cause is named only with evidence from the student's own answers: the known mistake
        that answers exactly as they did everywhere (``mistake``); else the failed probe whose
        named cause their answers show (grader.core.diagnosis.evidenced) and that explains most
        failed checks, saying how much of the failures it explains; else what the grader
        observed (``causes`` empty).
        Every failed probe whose cause is not shown is rewritten here as an observation: its
        hand-written text would name a mistake the code may not make.
        """
        if not evidence["failed"]:
            return None
        course = self.course
        found = diagnose(course, function, evidence["failed"], evidence["passed"])
        checks = {id(call) for call in evidence["checks"]}  # the same objects (equality would compare arrays)
        values = [call for call in evidence["failed"] if id(call) not in checks]
        if found is None and evidence["checks"] and values:
            # Every known mistake keeps the reference's input checks: a student who wrote none
            # (most do not) is still told which misconception their values show, and that it does
            # not explain the failed input checks.
            found = diagnose(course, function, values, evidence["passed"], scope="wrong value")
        failed_tests = [(outcome, calls, relation) for outcome, calls, relation, _ in evidence["tests"]]
        probes = [(o, c, r) for o, c, r, claims in evidence["tests"] if o.kind == "probe" and claims]
        if found is not None:
            return found[0], found[1], [found[0]]
        if not known_mistakes(course, function) and any(o.kind == "probe" for o, _, _ in failed_tests):
            # A course that keeps no catalogue for this function has no cause ids to check its probes'
            # texts against (e.g. a small course of its own): they speak as written, first.
            return None
        shown_by = []  # (probe, the causes its failure shows)
        related = []  # relations between the student's answers that name no cause: observed facts
        for outcome, calls, relation in probes:
            causes = causes_named(course, function, outcome.message)
            shown = evidenced(course, function, calls, evidence["passed"], causes, relation, values)
            if shown:
                shown_by.append((outcome, shown))
                continue
            # Its text names a cause that the answers do not show: say what they show instead.
            outcome.kind = "property"
            if relation and not causes:
                # A relation several mistakes share ("different seeds give identical results") names none
                # of them: it is what the answers show, and stays as written.
                related.append(outcome.message)
                continue
            seen = observations(course, function, calls)
            outcome.message = "wrong on a hand-built input" + (f" ({'; '.join(seen[1])})" if seen and seen[1] else "")
        if shown_by:
            # Several probes may show their causes: the one that explains most failed checks comes first.
            behaviour = [(o, c) for o, c, _ in failed_tests if o.kind != "contract"]

            def explains(probe, shown):
                return [o for o, c in behaviour
                        if o is probe or any(explained(course, function, cause, c) for cause in shown)]

            counted = [(len(explains(o, shown)), -i, o, shown) for i, (o, shown) in enumerate(shown_by)]
            count, _, outcome, shown = max(counted, key=lambda x: x[:2])
            rest = len(failed_tests) - count
            scope = (f"your answers show it on check '{outcome.name}'; it explains {count} of the "
                     f"{len(failed_tests)} failed checks" + ("" if not rest else "; the others are listed after it"))
            return None, f"{outcome.message} ({scope})", shown
        said = observe(course, function, evidence["failed"], evidence["passed"], related)
        return (None, said, []) if said else None

    def missing_results(self) -> list[str]:
        return [sid for sid in self.submissions if sid not in self.results and sid not in self.infrastructure_errors]

    def result_without_tests(self, sid: str) -> SubmissionResult:
        """For a submission no test ran against (e.g. the session stopped early)."""
        return self._result(sid, Submission(self.submissions[sid], self.course))

    # The collector is itself a pytest plugin (registered with the session).
    def pytest_collectreport(self, report):
        if report.failed:
            self.collection_errors.append(f"{report.nodeid}: {report.longreprtext}")


COLLECTOR = pytest.StashKey[Collector]()


def _collector(config) -> Collector:
    return config.stash[COLLECTOR]


def function_of(item) -> str:
    """Tests of ``test_<function>.py`` belong to ``<function>``."""
    stem = Path(str(item.path)).stem
    return stem[len("test_"):] if stem.startswith("test_") else stem


def outcome_name(item, sid: str) -> str:
    """The test's name without the submission parameter."""
    name = item.name.replace(f"-{sid}]", "]").replace(f"[{sid}-", "[").replace(f"-{sid}-", "-")
    return name.replace(f"[{sid}]", "")


# -- hooks -------------------------------------------------------------------------------
def pytest_addoption(parser):
    group = parser.getgroup("grader", "course grader")
    group.addoption("--submission", action="append", default=[], metavar="PATH",
                    help="submission to test (a directory shaped like exercises/ or one .py file); "
                         "repeatable; default: solutions/")
    group.addoption("--only", action="append", default=[], metavar="FUNCTION",
                    help="test only this function (repeatable)")


def pytest_configure(config):
    config.addinivalue_line("markers", "weight(value): share of the function's points this test carries (default 1)")
    config.addinivalue_line("markers", "example: a worked example of the module (read after the probes)")
    config.addinivalue_line("markers", "property: compared with the definition on many inputs (grader.testing.given "
                                       "marks these)")
    config.addinivalue_line("markers", "gate: failing it shows the function does not do the work (a simulation "
                                       "that ignores its seed): the exercise earns nothing")
    config.addinivalue_line("markers", "contract: errors on bad input, lists, inputs left unchanged, edge cases a "
                                       "trivial body passes; earns only when the function computes right, at most "
                                       "10 % of the exercise")
    # The grader passes its collector in; a developer's plain `pytest` run gets one here.
    collector = next((p for p in config.pluginmanager.get_plugins() if isinstance(p, Collector)), None)
    if collector is None:
        course = load_course(find_course_root(Path(str(config.rootpath))), check_tests=False)
        paths = config.getoption("submission") or [str(course.solutions_dir)]
        collector = Collector(course, {f"@{i}": Path(p).resolve() for i, p in enumerate(paths)},
                              only=config.getoption("only") or None)
        config.pluginmanager.register(collector, "grader-collector")
    config.stash[COLLECTOR] = collector
    testing.CONTEXT.course = collector.course


def pytest_generate_tests(metafunc):
    if "impl" in metafunc.fixturenames:
        ids = _collector(metafunc.config).submissions_for(function_of(metafunc.definition))
        metafunc.parametrize("impl", ids, ids=ids, indirect=True, scope="session")


def pytest_collection_modifyitems(session, config, items):
    collector = _collector(config)
    keep, drop = [], []
    for item in items:
        (keep if function_of(item) in collector.functions else drop).append(item)
        # Failures are explained by `explain`; pytest's formatted traceback (source, locals)
        # would be built for nothing, at about half a second per failed check.
        item.repr_failure = _short_failure_repr
    if drop:
        config.hook.pytest_deselected(items=drop)
        items[:] = keep


def _short_failure_repr(excinfo, style=None) -> str:
    return excinfo.exconly()


def kind_of(item) -> str:
    """What the test checks (grader.core.results.KINDS): its marker; unmarked tests are probes."""
    return next((kind for kind in KINDS[1:] if item.get_closest_marker(kind) is not None), KINDS[0])


class ObservedImplementation(Implementation):
    """``impl`` whose function calls are kept (inputs and what came back) while a hidden test runs."""

    def __getattr__(self, name: str):
        return ObservedFunction(super().__getattr__(name))


class ObservedFunction:
    """A student's function; each call is added to ``testing.CONTEXT.calls`` when that is a list."""

    def __init__(self, remote):
        self._remote = remote
        self.__name__ = remote.__name__

    def __call__(self, *args, **kwargs):
        return self._observe(self._remote, args, kwargs)

    def call_with_readonly_inputs(self, *args, **kwargs):
        return self._observe(self._remote.call_with_readonly_inputs, args, kwargs, readonly=True)

    def _observe(self, call, args, kwargs, readonly=False):
        calls = testing.CONTEXT.calls
        if calls is None or testing.CONTEXT.function != self.__name__:
            return call(*args, **kwargs)
        # Copies: a test may go on to change the arrays it passed.
        args = tuple(np.array(a) if isinstance(a, np.ndarray) else a for a in args)
        kwargs = {k: np.array(v) if isinstance(v, np.ndarray) else v for k, v in kwargs.items()}
        try:
            answer = call(*args, **kwargs)
        except StudentError as error:
            calls.append(Call(args, kwargs, Raised(error.error_type), readonly))
            raise
        calls.append(Call(args, kwargs, answer, readonly))
        return answer

    def __repr__(self) -> str:
        return repr(self._remote)


@pytest.fixture(scope="session")
def impl(request):
    """The submission under test; ``impl.<function>(...)`` runs the student's code remotely."""
    collector = _collector(request.config)
    sid = request.param
    submission = collector.open_submission(sid)
    try:
        yield ObservedImplementation(submission, label=f"submission {sid}")
    finally:
        collector.close_submission(sid)


class Reference:
    """The reference solutions, called directly in the trusted process.

    Calls whose arguments are all plain scalars are remembered for the session
    (grader.core.diagnosis.remembered, shared with the diagnosis): a class is graded
    against the same reference simulation, not one per student.
    """

    def __init__(self, course: Course):
        self._course = course

    def __getattr__(self, name):
        if name.startswith("_"):
            raise AttributeError(name)
        function = self._course.reference(name)

        def call(*args, **kwargs):
            return remembered(function, *args, **kwargs)

        call.__name__ = name
        return call


@pytest.fixture(scope="session")
def reference(request):
    """Reference implementations (trusted), for property tests."""
    return Reference(_collector(request.config).course)


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_call(item):
    function = testing.CONTEXT.function = function_of(item)
    # The calls of function exercises in hidden tests only: visible tests are public and explained by
    # their own text; a lab's call is a whole training, its diagnosis the lab test's own.
    observed = not _is_visible(item) and _collector(item.config).course.exercise(function).kind == "function"
    testing.CONTEXT.calls = [] if observed else None
    try:
        yield
    finally:
        item.stash[CALLS] = testing.CONTEXT.calls or []
        testing.CONTEXT.function = testing.CONTEXT.calls = None


CALLS = pytest.StashKey[list]()


def _is_visible(item) -> bool:
    return "visible" in Path(str(item.path)).parts


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item, call):
    outcome = yield
    report = outcome.get_result()
    callspec = getattr(item, "callspec", None)
    sid = callspec.params.get("impl") if callspec is not None else None
    if sid is None:
        return
    if report.when == "call" or (report.when == "setup" and report.failed):
        collector = _collector(item.config)
        function = function_of(item)
        marker = item.get_closest_marker("weight")
        weight = float(marker.args[0]) if marker is not None else 1.0
        if call.excinfo is not None:
            trouble = next((e for e in _exception_chain(call.excinfo.value) if isinstance(e, WorkerStartError)), None)
            if trouble is not None:
                collector.infrastructure_errors[sid] = str(trouble)
                return
        message = "" if report.passed else explain(call.excinfo, item, function)
        kind = kind_of(item)
        chain = _exception_chain(call.excinfo.value) if call.excinfo is not None else []
        if kind == "probe" and any(isinstance(e, testing.Unspecific) for e in chain):
            kind = "property"  # the probe's mistake is not it: the answer is just wrong, as a property says
        relation = any(isinstance(e, testing.Evidenced) for e in chain)
        # A failure the student's code raised (its own error, shown as it is) claims no cause: only a
        # check's hand-written message does.
        claims = next((isinstance(e, testing.Misconception) for e in chain
                       if isinstance(e, (testing.Misconception, StudentError, FunctionUnavailable))), False)
        gate = item.get_closest_marker("gate") is not None
        collector.record(sid, function,
                         TestOutcome(outcome_name(item, sid), report.passed, weight, message, kind, gate),
                         item.stash.get(CALLS, []), relation, claims)


def _exception_chain(exc: BaseException) -> list[BaseException]:
    chain, stack, seen = [], [exc], set()
    while stack:
        e = stack.pop(0)
        if e is None or id(e) in seen:
            continue
        seen.add(id(e))
        chain.append(e)
        if isinstance(e, BaseExceptionGroup):
            stack.extend(e.exceptions)
        stack.extend([e.__cause__, e.__context__])
    return chain


def explain(excinfo, item, function: str) -> str:
    """A message for the student: the misconception, never a traceback or hidden value."""
    if excinfo is None:
        return "failed"
    chain = _exception_chain(excinfo.value)
    for e in chain:
        if isinstance(e, FunctionUnavailable):
            return str(e)
    for e in chain:
        if isinstance(e, testing.Misconception):  # Unspecific too
            return str(e)
        if isinstance(e, UnsupportedReturn):
            return str(e)
        if isinstance(e, StudentError):
            return e.describe()
    if _is_visible(item):
        # Visible tests are public: their own assertion message is the best explanation.
        for e in chain:
            if isinstance(e, AssertionError) and str(e).strip():
                return f"{function}: {str(e).strip().splitlines()[0]}"
    doc = (getattr(item, "function", None).__doc__ or "").strip().split("\n\n")[0]
    doc = " ".join(doc.split())
    if doc:
        return f"{function} failed a check: {doc}"
    return f"{function} failed the check '{item.originalname}'"


try:  # Python 3.10 has no builtin BaseExceptionGroup
    BaseExceptionGroup
except NameError:  # pragma: no cover
    class BaseExceptionGroup(BaseException):  # type: ignore[no-redef]
        exceptions: tuple = ()
