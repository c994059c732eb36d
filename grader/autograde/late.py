"""The course's late policy as nbgrader's late-submission plugin (``AssignLatePenalties.plugin_class``).

``calendar.late_policy`` of course.yaml, written into nbgrader_config.py by ``grader build``:
``per_day`` of the score for every day or part of a day past the due date, and the whole score
after ``zero_after_days`` days (0: never). nbgrader computes how late a submission is from
its ``timestamp.txt`` and the assignment's due date in the gradebook, and keeps the penalty
apart from the score (formgrader, feedback and ``nbgrader export`` show it). A student's own
extension (``calendar.extensions``: a due date of their own, or lateness excused) is read from the
course (``course_root``) when the penalty is set, so plain ``nbgrader autograde`` honours it too.
"""

from __future__ import annotations

import os

from nbgrader.plugins import BasePlugin
from traitlets import Float, Unicode

# One rule for both routes: nbgrader's plugin here, the .py route's report and feedback there.
from grader.calendar import DAY, describe, late_penalty, late_text  # noqa: F401
from grader.core.course import Course, load_course

_COURSES: dict[tuple[str, float], Course] = {}


def course_at(root: str) -> Course:
    """The course at ``root``, read once per version of its course.yaml (a class calls the plugin per notebook)."""
    key = (root, os.stat(os.path.join(root, "course.yaml")).st_mtime)
    if key not in _COURSES:
        _COURSES[key] = load_course(root, check_files=False)
    return _COURSES[key]


class CourseLatePolicy(BasePlugin):
    """nbgrader's late-submission plugin for the course's ``calendar.late_policy`` and extensions."""

    per_day = Float(0.0, help="Fraction of the score taken off per day, or part of a day, late.").tag(config=True)
    zero_after_days = Float(0.0, help="After this many days late the score is 0 (0: never).").tag(config=True)
    course_root = Unicode("", help="The course (course.yaml), for its students' extensions.").tag(config=True)

    def late_submission_penalty(self, student_id: str, score: float, total_seconds_late: float) -> float:
        return late_penalty(
            score, self.seconds_late(student_id, total_seconds_late), self.per_day, self.zero_after_days
        )

    def seconds_late(self, student_id: str, total_seconds_late: float) -> float:
        """How late by the student's own due date: nbgrader's figure, unless course.yaml gives them an extension
        (the assignment and the submission's time are those of the AssignLatePenalties step that asks)."""
        assignment = getattr(self.parent, "assignment_id", None)
        if not self.course_root or not assignment:
            return total_seconds_late
        course = course_at(self.course_root)
        extension = course.extensions.of(assignment, student_id)
        if extension is None:
            return total_seconds_late
        if extension.excused:
            return 0.0
        submission = self.parent.gradebook.find_submission(assignment, student_id)
        if submission.timestamp is None:
            return 0.0
        return max(0.0, (submission.timestamp - course.due_utc(assignment, student_id)).total_seconds())
