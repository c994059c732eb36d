"""The course's late policy as nbgrader's late-submission plugin (``AssignLatePenalties.plugin_class``).

``calendar.late_policy`` of course.yaml, written into nbgrader_config.py by ``grader build``:
``per_day`` of the score for every day or part of a day past the due date, and the whole score
after ``zero_after_days`` days (0: never). nbgrader computes how late a submission is from
its ``timestamp.txt`` and the assignment's due date in the gradebook, and keeps the penalty
apart from the score (formgrader, feedback and ``nbgrader export`` show it).
"""

from __future__ import annotations

import math

from nbgrader.plugins import BasePlugin
from traitlets import Float

DAY = 86400.0


def late_penalty(score: float, seconds_late: float, per_day: float, zero_after_days: float = 0.0) -> float:
    """Points taken off ``score`` for a submission ``seconds_late`` past its due date."""
    if seconds_late <= 0 or score <= 0:
        return 0.0
    if zero_after_days and seconds_late > zero_after_days * DAY:
        return float(score)
    return float(min(score, score * per_day * math.ceil(seconds_late / DAY)))


class CourseLatePolicy(BasePlugin):
    """nbgrader's late-submission plugin for the course's ``calendar.late_policy``."""

    per_day = Float(0.0, help="Fraction of the score taken off per day, or part of a day, late.").tag(config=True)
    zero_after_days = Float(0.0, help="After this many days late the score is 0 (0: never).").tag(config=True)

    def late_submission_penalty(self, student_id: str, score: float, total_seconds_late: float) -> float:
        return late_penalty(score, total_seconds_late, self.per_day, self.zero_after_days)


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
