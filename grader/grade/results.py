"""Grades: per test, per function, per submission; and their JSON form."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Callable

from grader.course import Course


@dataclass
class TestOutcome:
    name: str
    passed: bool
    weight: float
    message: str

    def to_json(self) -> dict:
        return {"name": self.name, "passed": self.passed, "weight": self.weight, "message": self.message}


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

    def to_json(self) -> dict:
        return {"score": self.score, "max": self.max, "tests": [t.to_json() for t in self.tests],
                "error": self.error}

    @property
    def messages(self) -> list[str]:
        """Distinct failure messages, in test order."""
        return list(dict.fromkeys(t.message for t in self.tests if not t.passed and t.message))


@dataclass
class SubmissionResult:
    submission: str
    functions: dict[str, FunctionResult]
    elapsed: float = 0.0
    notes: list[str] = field(default_factory=list)

    @property
    def total(self) -> float:
        return round(sum(f.score for f in self.functions.values()), 6)

    @property
    def max(self) -> float:
        return round(sum(f.max for f in self.functions.values()), 6)

    def to_json(self) -> dict:
        return {"submission": self.submission, "total": self.total, "max": self.max,
                "functions": {name: f.to_json() for name, f in self.functions.items()}}

    @classmethod
    def from_json(cls, data: dict, assignment_of: Callable[[str], str]) -> "SubmissionResult":
        """Rebuild a result from its JSON form (e.g. a stored record); ``assignment_of(function)``
        names the assignment of each function."""
        functions = {}
        for name, f in data["functions"].items():
            tests = [TestOutcome(t["name"], t["passed"], t["weight"], t["message"]) for t in f["tests"]]
            functions[name] = FunctionResult(name, assignment_of(name), f["score"], f["max"], tests, f["error"])
        return cls(submission=data["submission"], functions=functions)


def score_function(course: Course, function: str, tests: list[TestOutcome], error: str | None,
                   error_kind: str | None = None) -> FunctionResult:
    """Points earned: the exercise's points times the passed share of test weight.

    A function that became unavailable (missing, import failure, time limit,
    crash) scores 0 whatever its earlier tests gave.
    """
    exercise = course.exercise(function)
    total_weight = sum(t.weight for t in tests)
    if error is not None or total_weight <= 0:
        score = 0.0
    else:
        score = exercise.points * sum(t.weight for t in tests if t.passed) / total_weight
    return FunctionResult(function=function, assignment=exercise.assignment, score=round(score, 6),
                          max=exercise.points, tests=tests, error=error, error_kind=error_kind)
