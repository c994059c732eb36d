"""One pytest session that grades submissions one after another, as they are handed out.

``run_tests`` needs every submission before the session starts (they become the
parameters of ``impl`` at collection time). A parallel class run wants the
opposite: each trusted process collects the hidden tests once (about a second)
and then takes the next submission from a shared queue whenever it is free, so
one slow submission never leaves the other processes idle.

The session parametrizes ``impl`` with a single placeholder id and overrides the
run loop: for each submission it binds the placeholder to the staged copy and
runs every collected test item, ending with ``nextitem=None`` so that all
fixtures, the worker included, are torn down between two submissions. Each
submission therefore sees exactly what it would see in ``run_tests``.
"""

from __future__ import annotations

import shutil
import tempfile
from pathlib import Path
from typing import Callable

import pytest

from grader.course import Course
from grader.errors import GraderError
from grader.grade.plugin import Collector
from grader.grade.results import SubmissionResult
from grader.grade.runner import run_pytest
from grader.grade.staging import stage_submission

PLACEHOLDER = "submission"

# next_submission() -> (student id, path) or None when there is nothing left
Feed = Callable[[], "tuple[str, Path] | None"]
# on_result(student id, original path, result)
Sink = Callable[[str, Path, SubmissionResult], None]
# on_failure(student id, reason): the submission could not be graded at all (e.g. unreadable)
Failure = Callable[[str, str], None]


class ClassCollector(Collector):
    """A Collector whose one submission id is bound to each student in turn."""

    def __init__(self, course: Course, *, launcher=None, only: list[str] | None = None):
        super().__init__(course, {PLACEHOLDER: Path("/nonexistent")}, launcher=launcher, only=only)

    def bind(self, staged: Path) -> None:
        self.submissions[PLACEHOLDER] = Path(staged)
        self.outcomes[PLACEHOLDER] = {}
        self.results.pop(PLACEHOLDER, None)
        self.open.pop(PLACEHOLDER, None)
        self.started.pop(PLACEHOLDER, None)
        self.infrastructure_errors.pop(PLACEHOLDER, None)


class _Loop:
    """The run loop: pull a submission, run all items against it, repeat."""

    def __init__(self, collector: ClassCollector, feed: Feed, sink: Sink, fail: Failure, staging: Path):
        self.collector = collector
        self.feed = feed
        self.sink = sink
        self.fail = fail
        self.staging = staging
        self.graded = 0

    @pytest.hookimpl(tryfirst=True)
    def pytest_runtestloop(self, session):
        if session.testsfailed and not session.config.option.continue_on_collection_errors:
            raise session.Interrupted(f"{session.testsfailed} errors during collection")
        items = list(session.items)
        hook = session.config.hook
        while True:
            job = self.feed()
            if job is None:
                break
            student, original = job
            staged = self.staging / "current"
            if staged.exists():
                shutil.rmtree(staged)
            try:
                stage_submission(self.collector.course, Path(original), staged)
            except (GraderError, OSError) as exc:  # this submission only (too big, unreadable, gone)
                self.fail(student, f"could not stage the submission: {exc}")
                continue
            self.collector.bind(staged)
            for i, item in enumerate(items):
                # nextitem=None on the last item tears down every fixture, the
                # session-scoped worker included: nothing carries over.
                hook.pytest_runtest_protocol(item=item, nextitem=items[i + 1] if i + 1 < len(items) else None)
                if session.shouldstop:
                    raise session.Interrupted(str(session.shouldstop))
            if PLACEHOLDER in self.collector.infrastructure_errors:
                # The grader's trouble, not the student's: stop, and let the run retry elsewhere.
                raise session.Interrupted(self.collector.infrastructure_errors[PLACEHOLDER])
            result = self.collector.results.get(PLACEHOLDER)
            if result is None:  # no test item for this course (e.g. no hidden tests yet)
                result = self.collector.result_without_tests(PLACEHOLDER)
            result.submission = str(original)
            self.sink(student, Path(original), result)
            self.graded += 1
        return True


def grade_stream(course: Course, feed: Feed, sink: Sink, fail: Failure, *, launcher=None, suite: str = "hidden",
                 only: list[str] | None = None) -> int:
    """Grade the submissions ``feed`` hands out in one pytest session; the number graded.

    Raises
    ------
    GraderError
        When the tests cannot be collected or pytest cannot run;
        ``WorkerStartError`` when a worker could not be started.
    """
    collector = ClassCollector(course, launcher=launcher, only=only)
    with tempfile.TemporaryDirectory(prefix="grader-class-") as staging:
        loop = _Loop(collector, feed, sink, fail, Path(staging))
        run_pytest(course, suite, [collector, loop])
    return loop.graded
