"""course.yaml is validated with errors that name the file, the line and the key."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from grader.core.course import load_course
from grader.errors import CourseError
from tests.helpers import ROOT


def make_course(tmp_path: Path, yaml_text: str) -> Path:
    """A minimal course directory: the real solutions/ plus the given course.yaml."""
    shutil.copytree(ROOT / "solutions", tmp_path / "solutions")
    (tmp_path / "course.yaml").write_text(yaml_text, encoding="utf-8")
    return tmp_path


GOOD = """\
course:
  id: c
  title: T
  module: 4
  module_title: M
assignments:
  - id: a1
    title: A
    exercises:
      - {function: gae_advantages, module: gae, points: 5}
"""


def error_of(tmp_path, text, **kwargs) -> str:
    with pytest.raises(CourseError) as info:
        load_course(make_course(tmp_path, text), check_tests=False, **kwargs)
    return str(info.value)


def test_the_real_course_is_valid():
    course = load_course(ROOT)
    assert course.functions, "the course has exercises"
    assert len(set(course.functions)) == len(course.functions)


def test_a_minimal_course_loads_with_defaults(tmp_path):
    course = load_course(make_course(tmp_path, GOOD), check_tests=False)
    exercise = course.exercise("gae_advantages")
    assert exercise.points == 5.0 and exercise.time_limit == 10.0 and exercise.visible
    assert exercise.assignment == "a1" and exercise.kind == "function"


def test_unknown_key_names_file_line_and_key(tmp_path):
    text = GOOD.replace("points: 5}", "points: 5, pointz: 3}")
    message = error_of(tmp_path, text)
    assert message.startswith("course.yaml:10:"), message
    assert "assignments[0].exercises[0].pointz" in message and "unknown key 'pointz'" in message


def test_missing_field_is_named(tmp_path):
    message = error_of(tmp_path, GOOD.replace(", points: 5}", "}"))
    assert "course.yaml:10:" in message and "missing required key 'points'" in message


def test_negative_points_rejected(tmp_path):
    message = error_of(tmp_path, GOOD.replace("points: 5", "points: -1"))
    assert "course.yaml:10:" in message and "points" in message and "at least 0" in message


def test_points_must_be_a_number(tmp_path):
    message = error_of(tmp_path, GOOD.replace("points: 5", "points: five"))
    assert "must be a float" in message and "assignments[0].exercises[0].points" in message


def test_function_missing_from_solutions(tmp_path):
    message = error_of(tmp_path, GOOD.replace("function: gae_advantages", "function: gae_advantage"))
    assert "course.yaml:10:" in message and "'gae_advantage' does not exist in solutions/gae.py" in message


def test_module_without_a_file(tmp_path):
    message = error_of(tmp_path, GOOD.replace("module: gae", "module: gea"))
    assert "solutions/gea.py" in message and "course.yaml:10:" in message


def test_missing_hidden_tests_are_reported(tmp_path):
    course_dir = make_course(tmp_path, GOOD)
    with pytest.raises(CourseError, match="no hidden tests at autograder-tests/hidden/test_gae_advantages.py"):
        load_course(course_dir)


def test_duplicate_function_and_assignment(tmp_path):
    twice = GOOD + "      - {function: gae_advantages, module: gae, points: 1}\n"
    assert "appears twice" in error_of(tmp_path / "a", twice)
    again = GOOD + GOOD[GOOD.index("  - id: a1") :]
    assert "duplicate assignment id 'a1'" in error_of(tmp_path / "b", again)


def test_invalid_yaml_points_at_the_line(tmp_path):
    message = error_of(tmp_path, GOOD.replace("title: A", "title: [A"))
    assert message.startswith("course.yaml:") and "not valid YAML" in message


def test_unknown_kind_and_bad_sandbox_value(tmp_path):
    assert "unknown kind 'quiz'" in error_of(tmp_path / "a", GOOD.replace("points: 5}", "points: 5, kind: quiz}"))
    text = GOOD + "sandbox:\n  memory_mb: -5\n"
    assert "sandbox.memory_mb" in error_of(tmp_path / "b", text)
    assert "sandbox.reply_kb" in error_of(tmp_path / "c", GOOD + "sandbox:\n  reply_kb: 0\n")
    assert "sandbox.reply_kb" in error_of(tmp_path / "d", GOOD + "sandbox:\n  reply_kb: lots\n")


def test_empty_file(tmp_path):
    assert "empty" in error_of(tmp_path, "")


def test_grader_command_reports_invalid_course(tmp_path):
    from tests.helpers import run_grader

    course_dir = make_course(tmp_path, GOOD.replace("points: 5}", "points: 5, extra: 1}"))
    proc = run_grader("grade", "--course", str(course_dir), str(course_dir / "solutions"))
    assert proc.returncode == 2
    assert "course.yaml:10:" in proc.stderr and "unknown key 'extra'" in proc.stderr
    assert "Traceback" not in proc.stderr


def test_the_calendar_names_a_real_time_zone(tmp_path):
    course = load_course(make_course(tmp_path, GOOD + "calendar: {time_zone: Europe/Paris}\n"), check_tests=False)
    assert course.time_zone == "Europe/Paris"
    assert load_course(make_course(tmp_path / "utc", GOOD), check_tests=False).time_zone == "UTC"
    message = error_of(tmp_path / "bad", GOOD + "calendar: {time_zone: Mars/Olympus}\n")
    assert message.startswith("course.yaml:11: calendar.time_zone: unknown time zone 'Mars/Olympus'"), message


def test_due_dates_and_the_late_policy(tmp_path):
    text = (
        GOOD.replace("    title: A\n", "    title: A\n    due: 2026-12-08 23:59\n")
        + "calendar: {time_zone: Europe/Paris, late_policy: {per_day: 0.1, zero_after_days: 5}}\n"
    )
    course = load_course(make_course(tmp_path, text), check_tests=False)
    assert str(course.assignment("a1").due) == "2026-12-08 23:59:00"
    assert str(course.due_utc("a1")) == "2026-12-08 22:59:00"  # nbgrader keeps UTC
    assert course.late_policy == {"per_day": 0.1, "zero_after_days": 5.0}
    day = load_course(
        make_course(tmp_path / "day", GOOD.replace("    title: A\n", "    title: A\n    due: 2026-12-08\n")),
        check_tests=False,
    )
    assert str(day.assignment("a1").due) == "2026-12-08 23:59:59" and day.late_policy == {}
    assert "not a date and time: 'next friday'" in error_of(
        tmp_path / "bad", GOOD.replace("    title: A\n", "    title: A\n    due: next friday\n")
    )
    assert "calendar.late_policy.per_day: a fraction of the score" in error_of(
        tmp_path / "bad2", GOOD + "calendar: {late_policy: {per_day: 2}}\n"
    )
    zero = load_course(make_course(tmp_path / "zero", GOOD + "calendar: {late_policy: zero}\n"), check_tests=False)
    assert zero.late_policy == {"per_day": 1.0, "zero_after_days": 0.0}
