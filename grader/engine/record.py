"""The one record of a graded submission: :class:`GradeRecord`.

Every grading path makes it (``grader grade``, ``grade-class`` here or on a Dask
cluster, ``grader autograde`` and nbgrader's ``TrustedGrade``) and every reader uses
it: the result store, ``summary.csv``, the autograde table and the gradebook, the HTML
report and Gradescope's ``results.json``. Its JSON form is what a results directory
holds (``results/<student>.json``)::

    {"format": 2, "student", "submission" (a relative label), "course", "submission_hash",
     "course_hash", "graded_at", "grader" (which machine/worker), "sandbox", "elapsed",
     "assignments": {id: {"score", "max", "functions"}}, "result" (as `grader grade --json`),
     "limits": [{"function", "kind", "detail"}], "workers": [{"exit", "ended", "output_bytes"}],
     "output", "wrong_replies" (when some: {function: ["<input>:<answer>", ...]}, for instructors
     only, grader.core.wrongreplies), and for notebooks: "assignment", "notes", "spans", "labs"}
"""

from __future__ import annotations

import dataclasses
import datetime
import signal
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from grader.core.course import Course
from grader.core.results import SubmissionResult, score_function, with_cells_named
from grader.sandbox.launcher import WorkerExit
from grader.sandbox.limits import Limits
from grader.worker.client import describe_exit

if TYPE_CHECKING:  # an annotation only: reading records (grader report) needs no staging code
    from grader.engine.parcel import Parcel

FORMAT = 2


def now() -> str:
    return datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds")


@dataclass
class GradeRecord:
    """A graded submission with its provenance, fingerprints, limits and (for notebooks) extraction."""

    student: str
    submission: str  # how the instructor named it, relative (alice.py, alice/ps4b)
    result: SubmissionResult
    course: str = ""
    submission_hash: str = ""  # empty: never current (nothing was run)
    course_hash: str = ""
    graded_at: str = field(default_factory=now)
    grader: str = ""  # the machine or Dask worker that graded it
    sandbox: str = ""
    limits: list[dict] = field(default_factory=list)
    workers: list[dict] = field(default_factory=list)
    output: str = ""
    assignments: dict[str, dict] = field(default_factory=dict)
    # What the extraction of a notebook tells the student (grader autograde).
    assignment: str | None = None
    notes: dict[str, list[str]] = field(default_factory=dict)
    spans: dict[str, list] = field(default_factory=dict)
    labs: list[str] = field(default_factory=list)
    # Digests of wrong replies to the hidden inputs (grader.core.wrongreplies): instructors only, for
    # `grader similarity`; never in the result, from which everything a student reads is made.
    wrong_replies: dict[str, list[str]] = field(default_factory=dict)

    def __post_init__(self):
        self.result.submission = self.submission
        if not self.wrong_replies and self.result.wrong_replies:
            self.wrong_replies = dict(self.result.wrong_replies)
        if not self.assignments:
            self.assignments = totals(self.result)

    @property
    def elapsed(self) -> float:
        return round(self.result.elapsed, 3)

    @property
    def total(self) -> float:
        return self.result.total

    @property
    def max(self) -> float:
        return self.result.max

    def is_current(self, submission_hash: str, course_hash: str) -> bool:
        """Is this the grade of exactly these files by exactly this course?"""
        return bool(self.submission_hash) and (self.submission_hash, self.course_hash) == (submission_hash, course_hash)

    def scores(self) -> dict[str, tuple[float, float]]:
        """function -> (score, max)."""
        return {name: (float(f.score), float(f.max)) for name, f in self.result.functions.items()}

    def with_extraction(self, assignment: str, extraction, labs=()) -> "GradeRecord":
        """This record with what a notebook's extraction tells the student: notes and cell spans; its
        messages name each solution cell as the student finds it in Jupyter, never by the file it ran as."""
        spans = {f: [s.module, s.first, s.last, s.cell, s.name] for f, s in extraction.spans.items()}
        return dataclasses.replace(
            self,
            result=with_cells_named(self.result, spans),
            assignment=assignment,
            labs=list(labs),
            notes=dict(extraction.notes),
            spans=spans,
        )

    # -- JSON ----------------------------------------------------------------------
    def to_json(self) -> dict:
        data = {
            "format": FORMAT,
            "student": self.student,
            "submission": self.submission,
            "course": self.course,
            "submission_hash": self.submission_hash,
            "course_hash": self.course_hash,
            "graded_at": self.graded_at,
            "grader": self.grader,
            "sandbox": self.sandbox,
            "elapsed": self.elapsed,
            "assignments": self.assignments,
            "result": self.result.to_json(),
            "limits": self.limits,
            "workers": self.workers,
            "output": self.output,
        }
        if self.wrong_replies:
            data["wrong_replies"] = self.wrong_replies
        if self.assignment is not None:
            data.update(assignment=self.assignment, notes=self.notes, spans=self.spans, labs=self.labs)
        return data

    @classmethod
    def from_json(cls, data: dict) -> "GradeRecord | None":
        """The record of a JSON document, or None when it is not one of this format."""
        if not isinstance(data, dict) or data.get("format") != FORMAT:
            return None
        try:
            assignment_of = {f: a for a, t in data["assignments"].items() for f in t.get("functions", [])}
            result = SubmissionResult.from_json(data["result"], lambda f: assignment_of.get(f, ""))
            result.elapsed = float(data.get("elapsed", 0.0))
            return cls(
                student=data["student"],
                submission=data["submission"],
                result=result,
                course=data.get("course", ""),
                submission_hash=data.get("submission_hash", ""),
                course_hash=data.get("course_hash", ""),
                graded_at=data.get("graded_at", ""),
                grader=data.get("grader", ""),
                sandbox=data.get("sandbox", ""),
                limits=list(data.get("limits", [])),
                workers=list(data.get("workers", [])),
                output=data.get("output", ""),
                assignments=data["assignments"],
                assignment=data.get("assignment"),
                notes=data.get("notes", {}),
                spans=data.get("spans", {}),
                labs=list(data.get("labs", [])),
                wrong_replies=_wrong_replies(data.get("wrong_replies")),
            )
        except (KeyError, TypeError, ValueError, AttributeError):
            return None


def _wrong_replies(data) -> dict[str, list[str]]:
    """The digests of a stored record, as far as they have the right shape (else none)."""
    if not isinstance(data, dict):
        return {}
    return {
        str(f): [str(e) for e in entries[:64]]
        for f, entries in data.items()
        if isinstance(entries, list) and all(isinstance(e, str) and len(e) < 64 for e in entries)
    }


def totals(result: SubmissionResult) -> dict[str, dict]:
    """Score, maximum and functions per assignment, in the order of the result."""
    out: dict[str, dict] = {}
    for name, f in result.functions.items():
        entry = out.setdefault(f.assignment, {"score": 0.0, "max": 0.0, "functions": []})
        entry["score"] = round(entry["score"] + f.score, 6)
        entry["max"] = round(entry["max"] + f.max, 6)
        entry["functions"].append(name)
    return out


def limit_events(result: SubmissionResult, exits: list[WorkerExit], limits: Limits) -> list[dict]:
    """The limits a submission ran into, for the instructor: time, CPU, memory, output, crashes."""
    events = []
    for name, f in result.functions.items():
        if f.error_kind in ("time limit", "crash", "reply limit", "submission deadline"):
            events.append({"function": name, "kind": f.error_kind, "detail": f.error})
    for exit in exits:
        # Only what the kernel reported of the worker counts; whatever the student's code
        # raised or printed ("MemoryError" included) proves nothing.
        if limits.near_memory_limit(exit.peak_memory):
            events.append(
                {
                    "function": exit.memory_function,
                    "kind": "memory limit",
                    "detail": f"peak memory {exit.peak_memory / 2**20:.0f} MiB of the "
                    f"{limits.memory_mb:g} MiB address space limit",
                }
            )
        if exit.code is not None and exit.code < 0 and -exit.code == signal.SIGXCPU:
            events.append({"function": None, "kind": "CPU limit", "detail": describe_exit(exit.code)})
        if exit.output_bytes >= int(limits.file_size_mb * 1024 * 1024):
            events.append(
                {
                    "function": None,
                    "kind": "output limit",
                    "detail": f"printed {exit.output_bytes / 2**20:.0f} MB (cap {limits.file_size_mb:g} MB)",
                }
            )
        elif exit.output_bytes > limits.output_bytes:
            events.append(
                {
                    "function": None,
                    "kind": "output truncated",
                    "detail": f"printed {exit.output_bytes / 1024:.0f} KB, kept {limits.output_kb:g} KB",
                }
            )
    return events


def ungraded_record(
    course: Course, student: str, label: str, functions: list[str], reason: str, *, course_hash: str = ""
) -> GradeRecord:
    """The record of a submission nothing could be run of (a notebook that cannot be read, more
    code than a submission may hold): every function scores zero and ``reason`` says why. It has
    no submission fingerprint, so it is never current: a rerun tries again."""
    result = SubmissionResult(label, {f: score_function(course, f, [], reason) for f in functions})
    return GradeRecord(student, label, result, course=course.id, course_hash=course_hash)


def graded_record(
    course: Course,
    parcel: Parcel,
    result: SubmissionResult,
    *,
    course_hash: str,
    exits: list[WorkerExit] = (),
    limits: Limits | None = None,
    sandbox: str = "",
    grader: str = "",
) -> GradeRecord:
    """The record of the submission ``parcel`` a grading session has just graded."""
    limits = limits or Limits.from_course(course)
    return GradeRecord(
        student=parcel.student,
        submission=parcel.label,
        result=result,
        course=course.id,
        submission_hash=parcel.fingerprint,
        course_hash=course_hash,
        grader=grader,
        sandbox=sandbox,
        limits=limit_events(result, list(exits), limits),
        workers=[{"exit": e.code, "ended": describe_exit(e.code), "output_bytes": e.output_bytes} for e in exits],
        output="".join(e.output for e in exits)[: limits.output_bytes],
    )
