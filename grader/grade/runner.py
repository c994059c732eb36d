"""Run a test suite (hidden or visible) against submissions in one pytest session."""

from __future__ import annotations

import contextlib
import io
import tempfile
from pathlib import Path
from typing import Callable

import pytest

from grader.course import Course
from grader.errors import GraderError
from grader.worker.client import WorkerStartError
from grader.grade.plugin import Collector
from grader.grade.results import SubmissionResult
from grader.grade.staging import stage_submission

SUITES = ("hidden", "visible")


def tests_dir_of(course: Course, suite: str) -> Path:
    """The folder of a suite's tests; a clear error when it is missing."""
    if suite not in SUITES:
        raise ValueError(f"suite must be one of {SUITES}")
    tests_dir = course.hidden_tests_dir if suite == "hidden" else course.visible_tests_dir
    if not tests_dir.is_dir():
        raise GraderError(f"no {suite} tests at {tests_dir}")
    return tests_dir


def run_pytest(course: Course, suite: str, plugins: list) -> None:
    """One grading session of ``suite`` with ``plugins`` (the first one a Collector).

    Every grading session goes through here, so they all get the same options.

    Raises
    ------
    GraderError
        When the tests cannot be collected, pytest cannot run, or a worker could not be started.
    """
    collector = plugins[0]
    tests_dir = tests_dir_of(course, suite)
    args = [str(tests_dir), "-c", str(course.tests_dir / "pytest.ini"), "--rootdir", str(course.tests_dir),
            "-p", "no:terminal", "-p", "no:cacheprovider",
            # Messages come from the tests themselves; rewriting asserts would cost ~1 s.
            "--assert=plain",
            # Its end-of-test gc.collect() calls cost ~0.4 s a session and report nothing we use.
            "-p", "no:unraisableexception",
            # No fd-level capture: on_result callbacks may report progress on the real stdout
            # (Python-level output of pytest/hypothesis still goes to the sink below).
            "--capture=no",
            # Per-test plugins that grading never uses (log capture, warning capture, ...)
            # cost a fraction of a millisecond per test, hundreds of times per submission.
            *[arg for plugin in ("logging", "warnings", "doctest", "junitxml", "pastebin", "stepwise",
                                 "faulthandler", "threadexception", "legacypath", "nose")
              for arg in ("-p", f"no:{plugin}")]]
    # pytest and hypothesis talk on stdout; the grader's own output must stay clean (--json).
    sink = io.StringIO()
    with contextlib.redirect_stdout(sink), contextlib.redirect_stderr(sink):
        code = pytest.main(args, plugins=plugins)
    if collector.collection_errors:
        raise GraderError(f"the {suite} tests could not be collected:\n" + "\n".join(collector.collection_errors))
    if collector.infrastructure_errors:
        # Not the students' fault: no grade may be recorded for these submissions.
        raise WorkerStartError("; ".join(sorted(set(collector.infrastructure_errors.values()))))
    if code in (pytest.ExitCode.INTERNAL_ERROR, pytest.ExitCode.USAGE_ERROR, pytest.ExitCode.INTERRUPTED):
        raise GraderError(f"the {suite} tests did not run (pytest: {code.name}):\n{sink.getvalue()[-3000:]}")


def run_tests(course: Course, submissions: dict[str, Path], *, suite: str = "hidden",
              only: list[str] | None = None, launcher=None,
              on_result: Callable[[str, SubmissionResult], None] | None = None,
              only_for: dict[str, list[str]] | None = None) -> dict[str, SubmissionResult]:
    """Grade every submission with the tests of ``suite``; one result per submission id.

    ``only`` restricts every submission to some functions; ``only_for`` restricts
    single submissions (submission id -> functions).

    ``on_result`` is called as each submission finishes (the session grades them one
    after another, one worker each).
    """
    tests_dir_of(course, suite)
    if only or only_for:
        unknown = [f for f in list(only or []) + [g for fs in (only_for or {}).values() for g in fs]
                   if f not in course.functions]
        if unknown:
            raise GraderError(f"not a function of this course: {', '.join(unknown)}")

    def relabel(sid, result):
        # Results name the submission as the instructor gave it, not the staging copy.
        result.submission = str(submissions[sid])
        if on_result is not None:
            on_result(sid, result)

    with tempfile.TemporaryDirectory(prefix="grader-staged-") as staging:
        staged = {sid: stage_submission(course, Path(path), Path(staging) / sid) for sid, path in submissions.items()}
        collector = Collector(course, staged, launcher=launcher, only=only, on_result=relabel, only_for=only_for)
        run_pytest(course, suite, [collector])
    for sid in collector.missing_results():
        collector.results[sid] = collector.result_without_tests(sid)
        collector.results[sid].submission = str(submissions[sid])
    return {sid: collector.results[sid] for sid in submissions}


def check_submission_path(path: Path | str) -> Path:
    """A submission must be a directory or a .py file; say clearly when it is not."""
    p = Path(path)
    if not p.exists():
        raise GraderError(f"submission not found: {p}")
    if p.is_file() and p.suffix != ".py":
        raise GraderError(f"a submission is a directory shaped like exercises/ or one .py file, not {p.name}")
    if not (p.is_file() or p.is_dir()):
        raise GraderError(f"not a file or directory: {p}")
    return p.resolve()
