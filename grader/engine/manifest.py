"""The manifest of a class run (``class.json`` in the results directory): :class:`ClassManifest`.

Written by :func:`grader.engine.dispatch.grade_class` when a run starts and again when it ends; read by
``grader report`` and ``grader feedback`` (as JSON: every key below is the JSON key, ``class`` for
:attr:`ClassManifest.klass`). It names the course, the class, its students and who they are (``people``:
the LMS, its id of the student and the name it shows), the calendar (due dates, late policy, extensions)
and each student's submission time, so the pages need nothing else to show penalties.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field

from grader.calendar import calendar_of
from grader.core.course import Course

FORMAT = 2


@dataclass
class ClassManifest:
    """What one results directory holds: the class, the run, the calendar and the students' times."""

    course: str
    course_title: str
    module: int
    module_title: str
    course_hash: str
    klass: str  # the folder the submissions came from (JSON: "class")
    students: list[str]
    jobs: int
    started_at: str
    only: list[str] | None = None
    assignments: list[dict] = field(default_factory=list)  # {"id", "title", "functions"}
    calendar: dict = field(default_factory=dict)  # grader.calendar.calendar_of
    submitted: dict[str, str] = field(default_factory=dict)  # student -> time handed in (UTC)
    submitted_problems: dict[str, str] = field(default_factory=dict)  # student -> why no time was read
    people: dict[str, dict] = field(default_factory=dict)  # student -> {"lms", "lms_id", "name", "late"}
    where: str | None = None
    finished_at: str | None = None
    wall_time: float | None = None
    graded_this_run: int = 0
    sandbox: str = ""
    interrupted: bool = False
    failed: dict[str, str] = field(default_factory=dict)
    format: int = FORMAT

    @classmethod
    def begin(
        cls, course: Course, *, course_hash: str, klass: str, students: list[str], jobs: int, started_at: str, only
    ):
        """The manifest of a run starting now: the course's part filled in."""
        return cls(
            course=course.id,
            course_title=course.title,
            module=course.module_number,
            module_title=course.module_title,
            course_hash=course_hash,
            klass=klass,
            students=students,
            jobs=jobs,
            started_at=started_at,
            only=only,
            assignments=[
                {"id": a.id, "title": a.title, "functions": [e.function for e in a.exercises]}
                for a in course.assignments
            ],
            calendar=calendar_of(course),
        )

    def to_json(self) -> dict:
        data = dataclasses.asdict(self)
        data["class"] = data.pop("klass")
        return data

    @classmethod
    def from_json(cls, data: dict | None) -> "ClassManifest | None":
        """The manifest of ``data`` (a results directory's ``class.json``), or None when it is none."""
        if not isinstance(data, dict) or "course" not in data:
            return None
        known = {f.name for f in dataclasses.fields(cls)}
        values = {k: v for k, v in data.items() if k in known}
        values["klass"] = data.get("class") or ""
        try:
            return cls(**values)
        except TypeError:  # an older manifest without a field this one requires
            return None
