"""What a class run's grading sessions, its backends and its dispatcher say to each other, in a module
of their own: :mod:`~grader.engine.dispatch` makes the backends (:mod:`~grader.engine.local`,
:mod:`~grader.engine.cluster`), which need only these names of it, and a session
(:class:`~grader.engine.driver.HostedSession`) answers each submission with an :class:`Outcome`."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Protocol

from grader.engine.events import RunListener
from grader.engine.parcel import Parcel
from grader.engine.record import GradeRecord


@dataclass
class Outcome:
    """What grading one submission gave: a record, or why there is none."""

    record: GradeRecord | None = None
    failure: str = ""
    infrastructure: bool = False  # the failure is the grader's (retry elsewhere), not the student's
    fatal: bool = False  # no session can grade anything (the tests do not collect, no sandbox)

    def to_json(self) -> dict:
        return {
            "record": self.record.to_json() if self.record else None,
            "failure": self.failure,
            "infrastructure": self.infrastructure,
            "fatal": self.fatal,
        }

    @classmethod
    def from_json(cls, data: dict) -> "Outcome":
        record = GradeRecord.from_json(data["record"]) if data.get("record") else None
        if data.get("record") and record is None:
            return cls(failure="the grading session sent a record that could not be read", infrastructure=True)
        return cls(record, data.get("failure", ""), bool(data.get("infrastructure")), bool(data.get("fatal")))


class Feed(Protocol):
    """The submissions of a class run as a backend sees them (:class:`~grader.engine.dispatch.Dispatcher`)."""

    listener: RunListener

    @property
    def finished(self) -> bool:
        """Nothing is left to grade, nor being graded."""

    @property
    def waiting(self) -> int:
        """Submissions not yet handed out."""

    def next(self, session: str) -> Parcel | None:
        """The next submission for ``session``; None when there is none left."""

    def outcome(self, student: str, outcome: Outcome) -> None:
        """What the session grading ``student`` said."""

    def lost(self, student: str, session: str, reason: str) -> None:
        """``session`` could not finish ``student``: retried once, then a failure of the infrastructure."""

    def session_lost(self, session: str, reason: str) -> None:
        """``session`` died or left: what it was grading is retried (or failed)."""


class Backend(Protocol):
    """Grading sessions somewhere: :meth:`run` grades until the feed has nothing left, and tells
    ``feed.listener`` when a session is ready (``started``) or will not grade (``refused``)."""

    where: str

    def run(self, feed: Feed) -> None: ...
