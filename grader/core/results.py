"""Grades: per test, per function, per submission; and their JSON form."""

from __future__ import annotations

import copy
import re
from dataclasses import dataclass, field
from typing import Callable

from grader.core.course import Course

# What a test checks, in the order a student should read its failures: a misconception
# probe names one mistake, a worked example shows one of the module's numbers, a property
# compares with the definition on many inputs, the contract covers the rest (errors on bad
# input, lists accepted, inputs left unchanged, edge cases a trivial body can pass).
KINDS = ("probe", "example", "property", "contract")
# The contract's tests together weigh at most this share of an exercise, and earn it only
# when the function computes right (see score_function).
CONTRACT_SHARE = 0.10


@dataclass
class TestOutcome:
    """One hidden test's outcome for one submission."""

    __test__ = False  # a record, not a test class: test modules that import it must not collect it

    name: str
    passed: bool
    weight: float
    message: str
    kind: str = "probe"
    # A gate (``@pytest.mark.gate``): failing it shows the function does not do the exercise's work
    # (a simulation whose results do not vary with the seed); the exercise then earns nothing.
    gate: bool = False

    def to_json(self) -> dict:
        return {
            "name": self.name,
            "passed": self.passed,
            "weight": self.weight,
            "message": self.message,
            "kind": self.kind,
            "gate": self.gate,
        }

    @classmethod
    def from_json(cls, data: dict) -> "TestOutcome":
        return cls(
            data["name"],
            data["passed"],
            data["weight"],
            data["message"],
            data.get("kind", "probe"),
            bool(data.get("gate", False)),
        )


@dataclass
class FunctionResult:
    function: str
    assignment: str
    score: float
    max: float
    tests: list[TestOutcome]
    error: str | None
    # What made the function unavailable ("time limit", "crash", ...; FunctionUnavailable.kind),
    # for reports on limits; not part of the JSON, whose "error" says it in words.
    error_kind: str | None = None
    # The message to read first (grader.core.diagnosis): the one known mistake that explains
    # every failed check (``mistake`` is its name in the course's catalogue), or else what the
    # failed checks have in common (``mistake`` None).
    diagnosis: str | None = None
    mistake: str | None = None
    # The causes the diagnosis names, as machine-readable ids (names of known mistakes in the
    # course's catalogue), each shown by the student's own answers; empty when the diagnosis is
    # an observation that names no cause.
    causes: list[str] = field(default_factory=list)

    def to_json(self) -> dict:
        return {
            "score": self.score,
            "max": self.max,
            "tests": [t.to_json() for t in self.tests],
            "error": self.error,
            "diagnosis": self.diagnosis,
            "mistake": self.mistake,
            "causes": list(self.causes),
        }

    @property
    def messages(self) -> list[str]:
        """What to read, most specific first: the diagnosis, then distinct failure messages in test order."""
        return messages_of(self.to_json())


def messages_of(function_json: dict) -> list[str]:
    """The messages of a function's JSON result (:meth:`FunctionResult.to_json`), the first one first.

    A known mistake that explains every wrong result is all there is to read of them (the
    failed tests' own messages are its consequences, and each guesses at a mistake of its
    own); failed input checks (contract tests, no evidence of a mistake) follow it.
    Otherwise the diagnosis, when there is one (what the failures have in common), then the
    failed tests' messages: tests are stored in diagnostic order (:data:`KINDS`).
    """
    diagnosis = function_json.get("diagnosis")
    failed = [t for t in function_json.get("tests", []) if not t["passed"] and t["message"]]
    if diagnosis and function_json.get("mistake"):
        failed = [t for t in failed if t.get("kind") == "contract"]
    elif diagnosis:  # a probe's evidenced message, with what it explains: not twice
        failed = [t for t in failed if not diagnosis.startswith(t["message"])]
    return list(dict.fromkeys(([diagnosis] if diagnosis else []) + [t["message"] for t in failed]))


@dataclass
class SubmissionResult:
    submission: str
    functions: dict[str, FunctionResult]
    elapsed: float = 0.0
    notes: list[str] = field(default_factory=list)
    # function -> digest of its wrong replies (grader.core.wrongreplies): for instructors, kept in the
    # record beside the result, never in this JSON (what students read is made from it).
    wrong_replies: dict[str, list[str]] = field(default_factory=dict)

    @property
    def total(self) -> float:
        return round(sum(f.score for f in self.functions.values()), 6)

    @property
    def max(self) -> float:
        return round(sum(f.max for f in self.functions.values()), 6)

    def to_json(self) -> dict:
        return {
            "submission": self.submission,
            "total": self.total,
            "max": self.max,
            "functions": {name: f.to_json() for name, f in self.functions.items()},
        }

    @classmethod
    def from_json(cls, data: dict, assignment_of: Callable[[str], str]) -> "SubmissionResult":
        """Rebuild a result from its JSON form (e.g. a stored record); ``assignment_of(function)``
        names the assignment of each function."""
        functions = {}
        for name, f in data["functions"].items():
            tests = [TestOutcome.from_json(t) for t in f["tests"]]
            functions[name] = FunctionResult(
                name,
                assignment_of(name),
                f["score"],
                f["max"],
                tests,
                f["error"],
                diagnosis=f.get("diagnosis"),
                mistake=f.get("mistake"),
                causes=list(f.get("causes") or []),
            )
        return cls(submission=data["submission"], functions=functions)


def in_diagnostic_order(tests: list[TestOutcome]) -> list[TestOutcome]:
    """Probes, worked examples, properties, the contract; test order within each kind."""
    rank = {kind: i for i, kind in enumerate(KINDS)}
    return sorted(tests, key=lambda t: rank.get(t.kind, 0))


def earned_share(tests: list[TestOutcome]) -> float:
    """The share of the points that ``tests`` earn.

    Behaviour tests (every kind but the contract) earn their weight when they pass. The
    contract's tests earn theirs only when the function computes right: it passes every
    worked example (or, without worked examples, every behaviour test). Their total weight
    counts for at most :data:`CONTRACT_SHARE` of the whole, so neither raising ValueError
    everywhere nor accepting lists can be worth much on its own.

    Two rules against answers that were not computed: the worked examples (published, so a
    body can return their answers) earn their weight only together with a passed hidden
    behaviour test that is not an example (a probe or property: other inputs of the same
    definition); and a failed gate test (the function does not do the work, e.g. a simulation
    that does not depend on its seed) makes the share 0, like a trivial body's.
    """
    if any(t.gate and not t.passed for t in tests):
        return 0.0
    behaviour = [t for t in tests if t.kind != "contract"]
    contract = [t for t in tests if t.kind == "contract"]
    behaviour_weight = sum(t.weight for t in behaviour)
    contract_weight = sum(t.weight for t in contract)
    most = CONTRACT_SHARE / (1.0 - CONTRACT_SHARE) * behaviour_weight
    scale = 1.0 if contract_weight <= most else most / contract_weight
    total = behaviour_weight + scale * contract_weight
    if total <= 0:
        return 0.0
    gate = [t for t in tests if t.kind == "example"] or behaviour
    computes_right = bool(gate) and all(t.passed for t in gate)
    hidden_cases = any(t.passed for t in behaviour if t.kind != "example")
    earned = sum(t.weight for t in behaviour if t.passed and (hidden_cases or t.kind != "example"))
    if computes_right and hidden_cases:
        earned += scale * sum(t.weight for t in contract if t.passed)
    return earned / total


def score_function(
    course: Course,
    function: str,
    tests: list[TestOutcome],
    error: str | None,
    error_kind: str | None = None,
    diagnosis: tuple | None = None,
) -> FunctionResult:
    """Points earned: the exercise's points times :func:`earned_share` of its tests.

    A function that became unavailable (missing, import failure, time limit,
    crash) scores 0 whatever its earlier tests gave. ``diagnosis`` is the message to
    read first with the known mistake it names: (name, message) when one explains every
    failed check, (None, message) when the message only says what the failures share; a
    third item lists the causes the message names (default: the mistake, if any).
    """
    exercise = course.exercise(function)
    tests = in_diagnostic_order(tests)
    score = 0.0 if error is not None else exercise.points * earned_share(tests)
    mistake, message, *named = diagnosis if diagnosis is not None and error is None else (None, None)
    causes = list(named[0]) if named else ([mistake] if mistake else [])
    return FunctionResult(
        function=function,
        assignment=exercise.assignment,
        score=round(score, 6),
        max=exercise.points,
        tests=tests,
        error=error,
        error_kind=error_kind,
        diagnosis=message,
        mistake=mistake,
        causes=causes,
    )


# A line of a file in a message: 'cell_gae_advantages.py, line 7' (how tracebacks name a line of a
# solution cell, which runs as a file of its own) or 'gae.py, line 12'.
WHERE = re.compile(r"\b(\w+)\.py, line (\d+)")


def name_cells(text: str, spans: dict[str, list]) -> str:
    """``text`` with each line of a notebook's solution cell named as the student finds it:
    'cell_gae_advantages.py, line 7' -> 'the cell under "gae_advantages (5 points)", In [3], line 7'.

    A span is [file, first line, last line, the cell's number, its name in Jupyter] (records written
    before cells had names lack the name, and older ones the number too: 'the cell of gae_advantages
    (cell 12), line 7')."""

    def replace(match):
        module, line = match.group(1), int(match.group(2))
        for function, (span_module, first, last, *where) in spans.items():
            if span_module == module and first <= line <= last:
                number, name = (where + [None, ""])[:2]
                cell = name or f"the cell of {function}" + (f" (cell {number})" if number else "")
                return f"{cell}, line {line - first + 1}"
        return match.group(0)

    return WHERE.sub(replace, text) if spans else text


def with_cells_named(result: SubmissionResult, spans: dict[str, list]) -> SubmissionResult:
    """A copy of ``result`` whose messages name solution cells as the student finds them (:func:`name_cells`)."""
    named = copy.deepcopy(result)
    for f in named.functions.values():
        f.error = name_cells(f.error, spans) if f.error else f.error
        f.diagnosis = name_cells(f.diagnosis, spans) if f.diagnosis else f.diagnosis
        for t in f.tests:
            t.message = name_cells(t.message, spans)
    return named
