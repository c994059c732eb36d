"""Due dates and late work for the ``.py`` route (``grade-class``, ``report``, ``feedback``).

A ``.py`` submission has no trustworthy submission time of its own (a file's modification time
is whatever the copy made it). The instructor may give one as nbgrader does: ``timestamp.txt``
in the student's folder (``nbgrader collect`` and ``grader autograde --zip`` write it so). With
it, each assignment's penalty follows ``calendar.late_policy`` of course.yaml exactly as
nbgrader's late plugin computes it (:func:`late_penalty`); without it, the pages show the due
dates and the policy, and no penalty. ``grade-class`` writes the calendar and the times it read
into the results manifest, so the report and the feedback need nothing else.
"""

from __future__ import annotations

import math
import os
import stat
from datetime import datetime, timezone
from pathlib import Path
from zoneinfo import ZoneInfo

DAY = 86400.0
TIMESTAMP = "timestamp.txt"
MAX_TIMESTAMP_BYTES = 100
# The course's precision: points a person reads (scores, penalties, exports) are kept to the hundredth.
POINTS_DECIMALS = 2


def late_penalty(score: float, seconds_late: float, per_day: float, zero_after_days: float = 0.0) -> float:
    """Points taken off ``score`` for a submission ``seconds_late`` past its due date, to the course's
    precision (``12 * 0.1`` is 1.2, not 1.2000000000000002)."""
    if seconds_late <= 0 or score <= 0:
        return 0.0
    if zero_after_days and seconds_late > zero_after_days * DAY:
        return float(score)
    return round(float(min(score, score * per_day * math.ceil(seconds_late / DAY))), POINTS_DECIMALS)


def describe(policy: dict) -> str:
    """The policy for people: ``10% per day late, 0 after 5 days``."""
    if not policy:
        return "no late penalty"
    text = f"{policy['per_day'] * 100:g}% of the score per day late (or part of a day)"
    return text + (f", 0 after {policy['zero_after_days']:g} days" if policy.get("zero_after_days") else "")


def late_text(seconds: float) -> str:
    """How late, for a table: ``1 d 9 h``, ``3 h 5 min``."""
    minutes = int(seconds // 60)
    days, hours, minutes = minutes // 1440, minutes % 1440 // 60, minutes % 60
    return f"{days} d {hours} h" if days else (f"{hours} h {minutes} min" if hours else f"{minutes} min")


def parse_time(text: str, time_zone: str) -> datetime:
    """A submission time as nbgrader writes it (``2026-12-03 09:15:00 UTC``, ISO with or without an
    offset) in UTC, without a zone; a time without a zone is in ``time_zone`` (calendar.time_zone).

    Raises
    ------
    ValueError
        When ``text`` is not such a time.
    """
    text = text.strip()
    zone = None
    if text.endswith(" UTC") or text.endswith("Z"):
        text, zone = text[:-4] if text.endswith(" UTC") else text[:-1], timezone.utc
    value = datetime.fromisoformat(text.strip())
    if value.tzinfo is None:
        value = value.replace(tzinfo=zone or ZoneInfo(time_zone))
    return value.astimezone(timezone.utc).replace(tzinfo=None)


def read_timestamp(submission: Path, time_zone: str) -> tuple[str | None, str | None]:
    """(the submission time in UTC as ISO text, or None; why a ``timestamp.txt`` was not used, or None).

    Only a folder has one: ``<folder>/timestamp.txt``, a regular file (never through a link) of at
    most :data:`MAX_TIMESTAMP_BYTES` bytes holding one time.
    """
    if not isinstance(submission, Path) or submission.is_symlink() or not submission.is_dir():
        return None, None
    path = submission / TIMESTAMP
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK)
    except FileNotFoundError:
        return None, None
    except OSError:
        return None, f"{TIMESTAMP} cannot be read (a link or not a file)"
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            return None, f"{TIMESTAMP} is not a regular file"
        data = os.read(fd, MAX_TIMESTAMP_BYTES + 1)
    finally:
        os.close(fd)
    if len(data) > MAX_TIMESTAMP_BYTES:
        return None, f"{TIMESTAMP} is longer than one time ({MAX_TIMESTAMP_BYTES} bytes at most)"
    try:
        return parse_time(data.decode("ascii"), time_zone).isoformat(" "), None
    except (UnicodeDecodeError, ValueError, OverflowError):
        return None, f"{TIMESTAMP} does not hold a time such as 2026-12-03 09:15:00 UTC"


def calendar_of(course) -> dict:
    """What the manifest keeps of course.yaml's calendar: the zone, the policy, each due date in UTC, and
    the extensions (assignment -> student -> {"due": their due date in UTC or None, "excused": bool})."""
    extensions: dict[str, dict] = {}
    for x in getattr(course, "extensions", ()):
        due = course.due_utc(x.assignment, x.student) if x.due else None
        extensions.setdefault(x.assignment, {})[x.student] = {
            "due": due.isoformat(" ") if due else None,
            "excused": x.excused,
        }
    return {
        "time_zone": course.time_zone,
        "late_policy": dict(course.late_policy),
        "due": {a.id: (due.isoformat(" ") if (due := course.due_utc(a.id)) else None) for a in course.assignments},
        "extensions": extensions,
    }


def extension_of(calendar: dict, assignment: str, student: str | None) -> dict:
    """``student``'s extension on ``assignment`` in a manifest's calendar ({} when none)."""
    extensions = calendar.get("extensions") if isinstance(calendar.get("extensions"), dict) else {}
    found = (extensions.get(assignment) or {}).get(student) if student else None
    return found if isinstance(found, dict) else {}


def due_text(calendar: dict, assignment: str) -> str:
    """``due 2026-12-08 23:59 Europe/Paris`` (in the course's zone), or ``no due date``."""
    due = (calendar.get("due") or {}).get(assignment)
    if not due:
        return "no due date"
    zone = calendar.get("time_zone") or "UTC"
    local = datetime.fromisoformat(due).replace(tzinfo=timezone.utc).astimezone(ZoneInfo(zone))
    return f"due {local:%Y-%m-%d %H:%M} {zone}"


def lateness(
    calendar: dict, submitted: str | None, assignment: str, score: float, student: str | None = None
) -> tuple[float, float] | None:
    """(seconds late, penalty in points) of ``student``'s submission of ``assignment`` with ``score``, or
    None when it was on time (by their own due date, when they have an extension), excused, or its time
    or due date is unknown."""
    extension = extension_of(calendar, assignment, student)
    if extension.get("excused"):
        return None
    due = extension.get("due") or (calendar.get("due") or {}).get(assignment)
    if not due or not submitted:
        return None
    seconds = (datetime.fromisoformat(submitted) - datetime.fromisoformat(due)).total_seconds()
    if seconds <= 0:
        return None
    policy = calendar.get("late_policy") or {}
    penalty = late_penalty(score, seconds, policy["per_day"], policy.get("zero_after_days", 0.0)) if policy else 0.0
    return seconds, penalty


def penalty_of(calendar: dict, submitted: str | None, assignments: dict[str, dict], student: str) -> float:
    """The late penalty of one student's record, over its assignments ({id: {"score": ...}})."""
    total = 0.0
    for assignment, entry in assignments.items():
        late = lateness(calendar, submitted, assignment, float(entry.get("score", 0.0)), student)
        total += late[1] if late else 0.0
    return round(total, POINTS_DECIMALS)


def due_text_for(calendar: dict, assignment: str, student: str | None) -> str:
    """:func:`due_text`, with ``student``'s own due date or excused lateness when they have one."""
    extension = extension_of(calendar, assignment, student)
    if extension.get("excused"):
        return due_text(calendar, assignment) + " (lateness excused)"
    if extension.get("due"):
        return due_text({**calendar, "due": {assignment: extension["due"]}}, assignment) + " (extended)"
    return due_text(calendar, assignment)
