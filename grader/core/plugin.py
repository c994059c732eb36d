"""pytest plugin: runs the autograder tests against submissions behind the boundary.

Loaded by ``autograder-tests/conftest.py``. :class:`GradingPlugin` is the plugin: it
holds one :class:`SubmissionState` per submission being graded, parametrizes the
tests over those submissions (one worker per submission, torn down before the next
starts), gives each test its ``impl`` and turns every test report into a
:class:`TestOutcome` with a message for people. What one run of a test keeps (the
calls of the function under test) lives in that item's stash.

Run directly by course developers::

    pytest autograder-tests/hidden                        # against solutions/
    pytest autograder-tests/hidden --submission exercises # against the stubs
"""

from __future__ import annotations

import copy
import functools
import time
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import pytest

from grader.core import wrongreplies
from grader.core.checks import CONTEXT, Evidenced, Misconception, Unspecific
from grader.core.course import Course, find_course_root, load_course
from grader.core.diagnosis import (
    EVIDENCE_BYTES,
    PASSED_PER_TEST,
    SUBMISSION_EVIDENCE_BYTES,
    Call,
    Raised,
    call_bytes,
    causes_named,
    diagnose,
    evidenced,
    explained,
    known_mistakes,
    remembered,
)
from grader.core.observation import observations, observe
from grader.core.results import KINDS, SubmissionResult, TestOutcome, score_function
from grader.core.rules import MARKER, RULES_FILE, CourseRule, course_rules, failed_rules_note
from grader.core.submission import (
    FunctionUnavailable,
    Implementation,
    StudentError,
    Submission,
    UnsupportedReturn,
)
from grader.worker.client import WorkerStartError

# The calls the function under test answered during one run of a hidden test (None: not observed).
# Set afresh when the run's setup starts: the engine runs the same items once per submission.
CALLS = pytest.StashKey["list[Call] | None"]()
# The session-scoped fixture parametrized over the submissions; ``impl`` wraps it for each test.
SUBMISSION = "graded_submission"
PLUGIN = pytest.StashKey["GradingPlugin"]()


@dataclass(frozen=True)
class Reported:
    """What a test's run earned, as the plugin recorded it (grader.core.replay traces the reference's)."""

    function: str
    outcome: TestOutcome
    calls: list[Call]
    relation: bool
    claims: bool


# The last run's report of a test that asks for ``impl`` (its call, or its setup when that failed).
REPORTED = pytest.StashKey[Reported]()


@dataclass
class Evidence:
    """The calls one function answered during its hidden tests: the evidence of diagnose().

    All of a failed test's calls are kept and the first of a passed test's, bounded in bytes
    per function (EVIDENCE_BYTES) and per submission (SUBMISSION_EVIDENCE_BYTES).
    """

    failed: list[Call] = field(default_factory=list)
    passed: list[Call] = field(default_factory=list)
    checks: list[Call] = field(default_factory=list)  # the failed contract tests' (also in ``failed``)
    tests: list[tuple] = field(default_factory=list)  # (outcome, calls, relation, claims) of each failed test
    bytes: int = 0


@dataclass
class SubmissionState:
    """All the plugin holds of one submission; grading another one starts from a new one."""

    path: Path
    only: set[str] | None = None  # its functions, when restricted (a wrong implementation on its own)
    outcomes: dict[str, list[TestOutcome]] = field(default_factory=dict)  # by function
    evidence: dict[str, Evidence] = field(default_factory=dict)  # by function, until the result is built
    submission: Submission | None = None  # open while its tests run
    started: float | None = None
    result: SubmissionResult | None = None
    # The grader's own trouble (a worker that would not start): no result, never a grade of zero.
    infrastructure_error: str | None = None


class GradingPlugin:
    """The pytest plugin of one session: the submissions it grades, by id, and their outcomes.

    Its hooks are its methods; the fixtures below reach it as ``config.stash[PLUGIN]``. The
    grader passes one in (grader.engine.driver); a developer's plain ``pytest`` run gets one
    from :func:`pytest_configure`.
    """

    def __init__(
        self,
        course: Course,
        submissions: dict[str, Path],
        *,
        launcher=None,
        only: list[str] | None = None,
        only_for: dict[str, list[str]] | None = None,
    ):
        self.course = course
        self.launcher = launcher
        self.only = list(only) if only else None
        # only_for: per-submission restriction (e.g. a wrong implementation is graded on its function only).
        self.states: dict[str, SubmissionState] = {}
        for sid, path in submissions.items():
            self.reset(sid, path, (only_for or {}).get(sid))
        self.collection_errors: list[str] = []
        # (function, outcome name) -> the course rule its test enforces (grader.core.rules), from the
        # markers at collection: a replayed outcome is found by its name as a run one is.
        self.rule_of: dict[tuple[str, str], CourseRule] = {}

    @functools.cached_property
    def rules(self) -> dict[str, CourseRule]:
        """The course's rules beyond the module (autograder-tests/course_rules.yaml), by id. Their functions
        are not checked against course.yaml here: a Gradescope package's course.yaml keeps one assignment."""
        return course_rules(self.course.tests_dir)

    def reset(self, sid: str, path: Path, only: list[str] | None = None) -> None:
        """Grade ``path`` as submission ``sid`` from now on, forgetting everything of the last one."""
        self.states[sid] = SubmissionState(Path(path), set(only) if only else None)

    @property
    def functions(self) -> list[str]:
        return [f for f in self.course.functions if self.only is None or f in self.only]

    def functions_of(self, sid: str) -> list[str]:
        return self._functions(self.states[sid])

    def _functions(self, state: SubmissionState) -> list[str]:
        return self.functions_for(state.only)

    def functions_for(self, only) -> list[str]:
        """The functions a submission restricted to ``only`` (None: not restricted) is graded on."""
        return [f for f in self.functions if not only or f in only]

    def state_of(self, item) -> SubmissionState | None:
        """The state of the submission ``item`` runs against (None: it asks for no ``impl``)."""
        return self.states.get(submission_of(item))

    def submissions_for(self, function: str) -> list[str]:
        return [sid for sid in self.states if function in self.functions_of(sid)]

    def open_submission(self, sid: str) -> Submission:
        """The submission ``sid``, open (its worker started on first use) until :meth:`close_submission`."""
        state = self.states[sid]
        if state.submission is not None:  # opened before its tests ran (a replay, grader.core.replay)
            return state.submission
        state.submission = Submission(state.path, self.course, launcher=self.launcher)
        state.started = time.monotonic()
        return state.submission

    def close_submission(self, sid: str) -> None:
        state = self.states[sid]
        submission, state.submission = state.submission, None
        submission.close()
        if state.infrastructure_error is None:
            state.result = self._result(state, submission)

    def record(
        self,
        sid: str,
        function: str,
        outcome: TestOutcome,
        calls: list[Call] = (),
        relation: bool = False,
        claims: bool = True,
        sizes: list[int] | None = None,
    ) -> None:
        """Keep a test's outcome and the calls it made; ``relation``: it failed on a relation between the
        student's own answers (grader.testing.Evidenced), which is evidence of the cause it names;
        ``claims``: its message is a check's text, which may name a cause (not the student's own error);
        ``sizes``: each call's :func:`call_bytes`, when known (a replayed test's, counted once)."""
        state = self.states[sid]
        state.outcomes.setdefault(function, []).append(outcome)
        evidence = state.evidence.setdefault(function, Evidence())
        # Kept until the submission's result is built: bounded per function and per submission.
        held = sum(e.bytes for e in state.evidence.values())
        kept = []
        for i, call in enumerate(calls[:PASSED_PER_TEST] if outcome.passed else calls):
            size = sizes[i] if sizes is not None else call_bytes(call)
            if evidence.bytes + size > EVIDENCE_BYTES or held + size > SUBMISSION_EVIDENCE_BYTES:
                break  # the diagnosis works from the calls kept so far
            evidence.bytes += size
            held += size
            kept.append(call)
        if outcome.passed:
            evidence.passed.extend(kept)
        else:
            evidence.failed.extend(kept)
            evidence.tests.append((outcome, kept, relation, claims))
            if outcome.kind == "contract":
                evidence.checks.extend(kept)

    def _result(self, state: SubmissionState, submission: Submission) -> SubmissionResult:
        functions = {}
        wrong_replies = {}  # instructors' evidence (grader.core.wrongreplies): never in the result's JSON
        for function in self._functions(state):
            tests = state.outcomes.get(function, [])
            function_state = submission.states.get(function)
            error = error_kind = None
            if function_state is not None and function_state.unavailable is not None:
                error, error_kind = function_state.unavailable.reason, function_state.unavailable.kind
            elif (
                function_state is not None
                and function_state.not_implemented
                and tests
                and not any(t.passed for t in tests)
            ):
                error = "not implemented"
            evidence = state.evidence.pop(function, Evidence())
            if evidence.failed and not submission.expired:
                wrong_replies[function] = wrongreplies.of(self.course, function, evidence.failed)
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
        now = time.monotonic()
        return SubmissionResult(
            submission=str(state.path),
            functions=functions,
            elapsed=now - (state.started if state.started is not None else now),
            wrong_replies={f: found for f, found in wrong_replies.items() if found},
        )

    def _diagnosis(self, function: str, tests: list[TestOutcome], evidence: Evidence) -> tuple | None:
        """(mistake, message, causes) to read first; None when nothing failed in the values.

        A cause is named only with evidence from the student's own answers: the known mistake
        that answers exactly as they did everywhere (``mistake``); else the failed probe whose
        named cause their answers show (grader.core.diagnosis.evidenced) and that explains most
        failed checks, saying how much of the failures it explains; else what the grader
        observed (``causes`` empty).
        Every failed probe whose cause is not shown is rewritten here as an observation: its
        hand-written text would name a mistake the code may not make.
        """
        if not evidence.failed:
            return None
        # The calls of a replayed test are its trace's, shared by every submission that agreed with it:
        # the diagnosis works on copies of its own (one copy per call: ``checks`` is told by identity).
        copies: dict[int, Call] = {}

        def own(calls: list[Call]) -> list[Call]:
            for c in calls:
                if id(c) not in copies:
                    copies[id(c)] = copy.deepcopy(c)
            return [copies[id(c)] for c in calls]

        evidence.failed, evidence.passed, evidence.checks = (
            own(evidence.failed),
            own(evidence.passed),
            own(evidence.checks),
        )
        evidence.tests = [(o, own(c), r, cl) for o, c, r, cl in evidence.tests]
        course = self.course

        found = diagnose(course, function, evidence.failed, evidence.passed)
        checks = {id(call) for call in evidence.checks}  # the same objects (equality would compare arrays)
        values = [call for call in evidence.failed if id(call) not in checks]
        if found is None and evidence.checks and values:
            # Every known mistake keeps the reference's input checks: a student who wrote none
            # (most do not) is still told which misconception their values show, and that it does
            # not explain the failed input checks.
            found = diagnose(course, function, values, evidence.passed, scope="wrong value")
        failed_tests = [(outcome, calls, relation) for outcome, calls, relation, _ in evidence.tests]
        probes = [(o, c, r) for o, c, r, claims in evidence.tests if o.kind == "probe" and claims]
        if found is not None:
            return found[0], self._with_rules(function, found[1], failed_tests), [found[0]]
        if not known_mistakes(course, function) and any(o.kind == "probe" for o, _, _ in failed_tests):
            # A course that keeps no catalogue for this function has no cause ids to check its probes'
            # texts against (e.g. a small course of its own): they speak as written, first.
            return None
        shown_by = []  # (probe, the causes its failure shows)
        related = []  # relations between the student's answers that name no cause: observed facts
        for outcome, calls, relation in probes:
            causes = causes_named(course, function, outcome.message)
            shown = evidenced(course, function, calls, evidence.passed, causes, relation, values)
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
            rule = self.rule_of.get((function, outcome.name))
            if rule is not None:  # a course rule stays one, whatever the answers show
                outcome.message += f" {rule.note}"
        if shown_by:
            # Several probes may show their causes: the one that explains most failed checks comes first.
            behaviour = [(o, c) for o, c, _ in failed_tests if o.kind != "contract"]

            def explains(probe, shown):
                return [
                    o
                    for o, c in behaviour
                    if o is probe or any(explained(course, function, cause, c) for cause in shown)
                ]

            counted = [(len(explains(o, shown)), -i, o, shown) for i, (o, shown) in enumerate(shown_by)]
            count, _, outcome, shown = max(counted, key=lambda x: x[:2])
            rest = len(failed_tests) - count
            scope = (
                f"your answers show it on check '{outcome.name}'; it explains {count} of the "
                f"{len(failed_tests)} failed checks" + ("" if not rest else "; the others are listed after it")
            )
            return None, self._with_rules(function, f"{outcome.message} ({scope})", failed_tests), shown
        said = observe(course, function, evidence.failed, evidence.passed, related)
        return (None, self._with_rules(function, said, failed_tests), []) if said else None

    def _with_rules(self, function: str, message: str, failed_tests: list[tuple]) -> str:
        """``message`` (a first message), naming the course rules the failed checks enforce that it does not
        name already: whatever else failed, the student reads that those points are the course's rules
        (grader.core.rules), not a misconception."""
        enforcing = [rule for o, _, _ in failed_tests if (rule := self.rule_of.get((function, o.name)))]
        unsaid = [r for r in dict.fromkeys(enforcing) if r.note not in message]
        if not unsaid:
            return message
        return f"{message} {failed_rules_note(unsaid, sum(r in unsaid for r in enforcing), len(failed_tests))}"

    def result_without_tests(self, sid: str) -> SubmissionResult:
        """For a submission no test ran against (e.g. the session stopped early)."""
        state = self.states[sid]
        return self._result(state, Submission(state.path, self.course))

    # -- hooks -----------------------------------------------------------------------------
    def pytest_collectreport(self, report):
        if report.failed:
            self.collection_errors.append(f"{report.nodeid}: {report.longreprtext}")

    def pytest_generate_tests(self, metafunc):
        if SUBMISSION in metafunc.fixturenames:
            ids = self.submissions_for(function_of(metafunc.definition))
            metafunc.parametrize(SUBMISSION, ids, ids=ids, indirect=True, scope="session")

    def pytest_collection_modifyitems(self, session, config, items):
        keep, drop = [], []
        for item in items:
            (keep if function_of(item) in self.functions else drop).append(item)
            self._collect_rule(item)
            # Failures are explained by `explain`; pytest's formatted traceback (source, locals)
            # would be built for nothing, at about half a second per failed check.
            item.repr_failure = _short_failure_repr
        if drop:
            config.hook.pytest_deselected(items=drop)
            items[:] = keep

    def _collect_rule(self, item) -> None:
        marker = item.get_closest_marker(MARKER)
        if marker is None:
            return
        function = function_of(item)
        rule = self.rules.get(marker.args[0]) if len(marker.args) == 1 else None
        if rule is None or function not in rule.functions:
            self.collection_errors.append(
                f"{item.nodeid}: {MARKER}{marker.args!r} is not a rule of autograder-tests/{RULES_FILE} for {function}"
            )
            return
        sid = submission_of(item)
        self.rule_of[(function, outcome_name(item, sid) if sid is not None else item.name)] = rule

    @pytest.hookimpl(hookwrapper=True)
    def pytest_runtest_setup(self, item):
        # Before any other setup, which may fail: a failed setup is recorded with this run's calls (none),
        # never with those of the item's run on the submission before.
        # The calls of function exercises in hidden tests only: visible tests are public and explained by
        # their own text; a lab's call is a whole training, its diagnosis the lab test's own.
        observed = not _is_visible(item) and self.course.exercise(function_of(item)).kind == "function"
        item.stash[CALLS] = [] if observed else None
        if REPORTED in item.stash:  # this run reports afresh
            del item.stash[REPORTED]
        yield

    @pytest.hookimpl(hookwrapper=True)
    def pytest_runtest_call(self, item):
        # The one global a test sees (grader.testing.CONTEXT): its helpers read the exercise's tolerance
        # and parameters without being passed the test.
        CONTEXT.function = function_of(item)
        CONTEXT.accepted_other = False
        try:
            yield
        finally:
            CONTEXT.function = None

    @pytest.hookimpl(hookwrapper=True)
    def pytest_runtest_makereport(self, item, call):
        outcome = yield
        report = outcome.get_result()
        sid = submission_of(item)
        if sid is None or not (report.when == "call" or (report.when == "setup" and report.failed)):
            return
        function = function_of(item)
        if call.excinfo is not None:
            trouble = next((e for e in _exception_chain(call.excinfo.value) if isinstance(e, WorkerStartError)), None)
            if trouble is not None:
                self.states[sid].infrastructure_error = str(trouble)
                return
        marker = item.get_closest_marker("weight")
        weight = float(marker.args[0]) if marker is not None else 1.0
        message = "" if report.passed else explain(call.excinfo, item, function)
        rule = None if report.passed else self.rule_of.get((function, outcome_name(item, sid)))
        if rule is not None:  # whatever failed in it, the check enforces the course's rule: it says so
            message = f"{message} {rule.note}"
        kind = kind_of(item)
        chain = _exception_chain(call.excinfo.value) if call.excinfo is not None else []
        if kind == "probe" and any(isinstance(e, Unspecific) for e in chain):
            kind = "property"  # the probe's mistake is not it: the answer is just wrong, as a property says
        relation = any(isinstance(e, Evidenced) for e in chain)
        # A failure the student's code raised (its own error, shown as it is) claims no cause: only a
        # check's hand-written message does.
        claims = next(
            (
                isinstance(e, Misconception)
                for e in chain
                if isinstance(e, (Misconception, StudentError, FunctionUnavailable))
            ),
            False,
        )
        gate = item.get_closest_marker("gate") is not None
        outcome = TestOutcome(outcome_name(item, sid), report.passed, weight, message, kind, gate)
        calls = item.stash.get(CALLS, None) or []
        if report.passed and CONTEXT.accepted_other:
            calls = []  # it passed on an answer the reference does not give: no evidence of what is right
        self.record(sid, function, outcome, calls, relation, claims)
        item.stash[REPORTED] = Reported(function, outcome, list(calls), relation, claims)


def function_of(item) -> str:
    """Tests of ``test_<function>.py`` belong to ``<function>``."""
    return _function_of_file(str(item.path))


@functools.lru_cache(maxsize=1024)
def _function_of_file(path: str) -> str:
    # Asked for every test of every submission, several times: a path parsed once.
    stem = Path(path).stem
    return stem[len("test_") :] if stem.startswith("test_") else stem


def submission_of(item) -> str | None:
    """The id of the submission a test runs against (None: the test asks for no ``impl``)."""
    callspec = getattr(item, "callspec", None)
    return callspec.params.get(SUBMISSION) if callspec is not None else None


def outcome_name(item, sid: str) -> str:
    """The test's name without the submission parameter."""
    name = item.name.replace(f"-{sid}]", "]").replace(f"[{sid}-", "[").replace(f"-{sid}-", "-")
    return name.replace(f"[{sid}]", "")


# -- hooks -------------------------------------------------------------------------------
def pytest_addoption(parser):
    group = parser.getgroup("grader", "course grader")
    group.addoption(
        "--submission",
        action="append",
        default=[],
        metavar="PATH",
        help="submission to test (a directory shaped like exercises/ or one .py file); repeatable; default: solutions/",
    )
    group.addoption(
        "--only", action="append", default=[], metavar="FUNCTION", help="test only this function (repeatable)"
    )


def pytest_configure(config):
    config.addinivalue_line("markers", "weight(value): share of the function's points this test carries (default 1)")
    config.addinivalue_line("markers", "example: a worked example of the module (read after the probes)")
    config.addinivalue_line(
        "markers", "property: compared with the definition on many inputs (grader.testing.given marks these)"
    )
    config.addinivalue_line(
        "markers",
        "gate: failing it shows the function does not do the work (a simulation "
        "that ignores its seed): the exercise earns nothing",
    )
    config.addinivalue_line(
        "markers",
        f"{MARKER}(id): enforces a rule of the course beyond the module's code (autograder-tests/{RULES_FILE}); "
        "its failure says so",
    )
    config.addinivalue_line(
        "markers",
        "contract: errors on bad input, lists, inputs left unchanged, edge cases a "
        "trivial body passes; earns only when the function computes right, at most "
        "10 % of the exercise",
    )
    # The grader passes its plugin in; a developer's plain `pytest` run gets one here.
    plugin = next((p for p in config.pluginmanager.get_plugins() if isinstance(p, GradingPlugin)), None)
    if plugin is None:
        course = load_course(find_course_root(Path(str(config.rootpath))), check_tests=False)
        paths = config.getoption("submission") or [str(course.solutions_dir)]
        plugin = GradingPlugin(
            course, {f"@{i}": Path(p).resolve() for i, p in enumerate(paths)}, only=config.getoption("only") or None
        )
        config.pluginmanager.register(plugin, "grader-plugin")
    config.stash[PLUGIN] = plugin
    # Read when the test modules are collected (worked examples, property counts), before any test runs.
    CONTEXT.course = plugin.course


def _short_failure_repr(excinfo, style=None) -> str:
    return excinfo.exconly()


def kind_of(item) -> str:
    """What the test checks (grader.core.results.KINDS): its marker; unmarked tests are probes."""
    return next((kind for kind in KINDS[1:] if item.get_closest_marker(kind) is not None), KINDS[0])


class ObservedImplementation(Implementation):
    """``impl`` of one test: the calls of ``function``, the function under test, are added to
    ``calls`` (inputs and what came back) unless that is None."""

    def __init__(self, submission: Submission, label: str, function: str, calls: list[Call] | None):
        super().__init__(submission, label)
        self._function = function
        self._calls = calls

    def __getattr__(self, name: str):
        remote = super().__getattr__(name)
        if self._calls is None or name != self._function:
            return remote
        return ObservedFunction(remote, self._calls)


class ObservedFunction:
    """The student's function under test; each call is added to ``calls``."""

    def __init__(self, remote, calls: list[Call]):
        self._remote = remote
        self._calls = calls
        self.__name__ = remote.__name__

    def __call__(self, *args, **kwargs):
        return self._observe(self._remote, args, kwargs)

    def call_with_readonly_inputs(self, *args, **kwargs):
        return self._observe(self._remote.call_with_readonly_inputs, args, kwargs, readonly=True)

    def _observe(self, call, args, kwargs, readonly=False):
        calls = self._calls
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


# The plugin's fixtures, written as functions (pytest deprecates session-scoped fixtures that are
# methods of an instance): they find the plugin in the session's config.
@pytest.fixture(scope="session")
def graded_submission(request):
    """The submission of this test's parameter, open (its worker) until its last test has run."""
    plugin = request.config.stash[PLUGIN]
    sid = request.param
    submission = plugin.open_submission(sid)
    try:
        yield submission
    finally:
        plugin.close_submission(sid)


@pytest.fixture
def impl(request, graded_submission):
    """The submission under test; ``impl.<function>(...)`` runs the student's code remotely."""
    item = request.node
    return ObservedImplementation(
        graded_submission, f"submission {submission_of(item)}", function_of(item), item.stash.get(CALLS, None)
    )


@pytest.fixture(scope="session")
def reference(request):
    """Reference implementations (trusted), for property tests."""
    return Reference(request.config.stash[PLUGIN].course)


def _is_visible(item) -> bool:
    return "visible" in Path(str(item.path)).parts


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
        if isinstance(e, Misconception):  # Unspecific too
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
