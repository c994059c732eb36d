"""The course's late policy as nbgrader's late-submission plugin (``AssignLatePenalties.plugin_class``).

``calendar.late_policy`` of course.yaml, written into nbgrader_config.py by ``grader build``:
``per_day`` of the score for every day or part of a day past the due date, and the whole score
after ``zero_after_days`` days (0: never). nbgrader computes how late a submission is from
its ``timestamp.txt`` and the assignment's due date in the gradebook, and keeps the penalty
apart from the score (formgrader, feedback and ``nbgrader export`` show it).
"""

from __future__ import annotations

from nbgrader.plugins import BasePlugin
from traitlets import Float

# One rule for both routes: nbgrader's plugin here, the .py route's report and feedback there.
from grader.calendar import DAY, describe, late_penalty, late_text  # noqa: F401


class CourseLatePolicy(BasePlugin):
    """nbgrader's late-submission plugin for the course's ``calendar.late_policy``."""

    per_day = Float(0.0, help="Fraction of the score taken off per day, or part of a day, late.").tag(config=True)
    zero_after_days = Float(0.0, help="After this many days late the score is 0 (0: never).").tag(config=True)

    def late_submission_penalty(self, student_id: str, score: float, total_seconds_late: float) -> float:
        return late_penalty(score, total_seconds_late, self.per_day, self.zero_after_days)
