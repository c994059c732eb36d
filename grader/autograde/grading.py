"""Grade many extracted submissions with the trusted grader, in parallel sessions.

Each job is one pytest session (``grader.grade.runner.run_tests``) over a share of
the class, in a forked process; inside a session submissions are graded one
after another, one worker each. Finished submissions are reported back as they
come, for the progress display.
"""

from __future__ import annotations

import contextlib
import json
import multiprocessing
import os
import queue as queue_module
import sys
import traceback
from pathlib import Path
from typing import Callable

from grader.autograde.reaper import become_subreaper, kill_strays
from grader.course import Course
from grader.errors import GraderError
from grader.grade.results import SubmissionResult
from grader.grade.runner import run_tests
from grader.sandbox import sandbox_launcher


def default_jobs() -> int:
    """Grading processes when --jobs is not given: one per core, at most 4 (never more than students:
    the class engine starts no more processes than it has submissions to grade)."""
    return max(1, min(os.cpu_count() or 1, 4))


@contextlib.contextmanager
def worker_launcher(course: Course, sandbox: str):
    """The course's sandbox launcher (``sandbox``: auto, require or off)."""
    with sandbox_launcher(course, mode=sandbox, warn=lambda text: print(text, file=sys.stderr)) as launcher:
        yield launcher


def grade_session(course: Course, submissions: dict[str, Path], only: list[str], sandbox: str,
                  done: Callable[[str, SubmissionResult], None]) -> None:
    """One pytest session over ``submissions``; stray processes are killed after each submission."""
    with worker_launcher(course, sandbox) as launcher:
        # A plain local worker leaves detached children behind when it is killed; adopt and
        # kill them before the next submission (a sandbox launcher cleans up after itself).
        reap = launcher is None and become_subreaper()

        def finished(sid: str, result: SubmissionResult) -> None:
            if reap:
                kill_strays()
            done(sid, result)

        run_tests(course, submissions, only=only, launcher=launcher, on_result=finished)


def _job(course: Course, chunk: dict[str, str], only: list[str], out: str, sandbox: str, events) -> None:
    try:
        def done(sid: str, result: SubmissionResult) -> None:
            Path(out, f"{sid}.json").write_text(json.dumps(result.to_json()), encoding="utf-8")
            events.put(("done", sid))

        grade_session(course, {sid: Path(p) for sid, p in chunk.items()}, only, sandbox, done)
        events.put(("finished", None))
    except BaseException as exc:  # the parent must hear about it, whatever it was
        events.put(("error", f"{exc}\n{traceback.format_exc(limit=5)}"))


def grade_all(course: Course, submissions: dict[str, Path], only: list[str], *, jobs: int, scratch: Path,
              sandbox: str = "auto", on_done: Callable[[str], None] | None = None) -> dict[str, dict]:
    """Result JSON (``SubmissionResult.to_json()``) per submission id."""
    if not submissions:
        return {}
    jobs = max(1, min(jobs, len(submissions)))
    out = Path(scratch)
    out.mkdir(parents=True, exist_ok=True)
    ids = list(submissions)
    chunks = [{sid: str(submissions[sid]) for sid in ids[i::jobs]} for i in range(jobs)]
    if jobs == 1:
        def done(sid, result):
            (out / f"{sid}.json").write_text(json.dumps(result.to_json()), encoding="utf-8")
            if on_done:
                on_done(sid)

        grade_session(course, dict(submissions), only, sandbox, done)
    else:
        context = multiprocessing.get_context("fork")
        events = context.Queue()
        processes = [context.Process(target=_job, args=(course, chunk, only, str(out), sandbox, events), daemon=True)
                     for chunk in chunks]
        for p in processes:
            p.start()
        finished, errors = 0, []
        while finished < len(processes):
            try:
                kind, payload = events.get(timeout=5)
            except queue_module.Empty:
                if not any(p.is_alive() for p in processes) and events.empty():
                    errors.append("a grading job ended without reporting")
                    break
                continue
            if kind == "done":
                if on_done:
                    on_done(payload)
            else:
                finished += 1
                if kind == "error":
                    errors.append(payload)
        for p in processes:
            p.join(timeout=30)
        if errors:
            raise GraderError("grading failed:\n" + "\n".join(errors))
    results = {}
    for sid in ids:
        path = out / f"{sid}.json"
        if not path.is_file():
            raise GraderError(f"no result for {sid}")
        results[sid] = json.loads(path.read_text(encoding="utf-8"))
    return results
