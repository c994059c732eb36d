"""What a class run tells whoever follows it: :class:`RunListener`, one method per event.

The dispatcher and the backends (:mod:`~grader.engine.local`, :mod:`~grader.engine.cluster`)
call these methods; the console of ``grader grade-class``, ``grader autograde``'s Grade step,
the demo and the dispatcher itself (which remembers the sandbox) subclass :class:`RunListener`
and override the events they show. The texts people read about a run are written here once,
as rich markup, with everything a student or a worker controls (ids, session names, reasons)
escaped by :func:`grader.display.markup`.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from grader.display import markup

if TYPE_CHECKING:
    from grader.engine.record import GradeRecord


class RunListener:
    """Follows a class run; every event does nothing here, subclasses override those they need."""

    def plan(self, total: int, todo: int, current: int) -> None:
        """``total`` submissions: ``current`` have a current record, ``todo`` are to be graded."""

    def started(self, session: str, sandbox: str, sandboxed: bool | None) -> None:
        """``session`` is ready to grade; ``sandbox`` describes its sandbox (``sandboxed``: it has one)."""

    def refused(self, session: str, reason: str) -> None:
        """``session`` (a cluster worker) will not grade this run, e.g. it holds another course."""

    def began(self, student: str, session: str) -> None:
        """``session`` is grading ``student``."""

    def graded(self, student: str, record: GradeRecord, session: str) -> None:
        """``student``'s record is saved (``session`` ``-``: refused before grading, a zero that says why)."""

    def retry(self, student: str, session: str, reason: str) -> None:
        """``session`` could not finish ``student``; it goes back to the queue for another session."""

    def failed(self, student: str, reason: str, infrastructure: bool = False) -> None:
        """``student`` has no grade from this run (``infrastructure``: the sessions failed, not the student)."""

    def lost(self, session: str) -> None:
        """``session`` died or left; what it was grading was retried or failed before this."""


class Relay(RunListener):
    """Every event to each of ``listeners``, in order."""

    def __init__(self, *listeners: RunListener):
        self.listeners = listeners

    def plan(self, total: int, todo: int, current: int) -> None:
        for listener in self.listeners:
            listener.plan(total, todo, current)

    def started(self, session: str, sandbox: str, sandboxed: bool | None) -> None:
        for listener in self.listeners:
            listener.started(session, sandbox, sandboxed)

    def refused(self, session: str, reason: str) -> None:
        for listener in self.listeners:
            listener.refused(session, reason)

    def began(self, student: str, session: str) -> None:
        for listener in self.listeners:
            listener.began(student, session)

    def graded(self, student: str, record: GradeRecord, session: str) -> None:
        for listener in self.listeners:
            listener.graded(student, record, session)

    def retry(self, student: str, session: str, reason: str) -> None:
        for listener in self.listeners:
            listener.retry(student, session, reason)

    def failed(self, student: str, reason: str, infrastructure: bool = False) -> None:
        for listener in self.listeners:
            listener.failed(student, reason, infrastructure)

    def lost(self, session: str) -> None:
        for listener in self.listeners:
            listener.lost(session)


# What people read, as rich markup (print with markup on): written once for every command. A reason can
# carry what a worker or a submission said (an exception's text, a file name): one console line, bounded.
NAME_CHARS, REASON_CHARS = 120, 400


def refused_message(session: str, reason: str) -> str:
    return f"[bold red]refused {markup(session, NAME_CHARS)}: {markup(reason, REASON_CHARS)}[/bold red]"


def retry_message(student: str, session: str, reason: str) -> str:
    return f"[yellow]{markup(session, NAME_CHARS)} lost {markup(student, NAME_CHARS)} ({markup(reason, REASON_CHARS)}); grading it again elsewhere[/yellow]"


def failed_message(student: str, reason: str) -> str:
    return f"[red]could not grade {markup(student, NAME_CHARS)}: {markup(reason, REASON_CHARS)}[/red]"


def lost_message(session: str) -> str:
    return f"[yellow]lost the grading session {markup(session, NAME_CHARS)}[/yellow]"
