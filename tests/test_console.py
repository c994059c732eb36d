"""Student text reaches the console as plain text: never rich markup, never terminal control.

A message, student id or file name holding ``[/bold]`` once stopped ``grader grade`` and
``grader autograde --details`` (rich's MarkupError); ``[red]`` or ``[link=...]`` silently
vanished. Each command is run on such text and must print it literally.
"""

from __future__ import annotations

import argparse
import shutil
from io import StringIO
from types import SimpleNamespace

from rich.console import Console

from grader import display
from grader.core.course import load_course
from grader.core.results import FunctionResult, SubmissionResult
from grader.core.results import TestOutcome as Outcome
from grader.engine.record import GradeRecord
from grader.feedback import grade_table
from grader.lms import name_id
from tests.helpers import ROOT, run_grader
from tests.toy_course import make_toy_course, solution_source

HOSTILE = ROOT / "tests" / "data" / "hostile" / "markup_text.py"
MARKUP = "[/bold][red]x[link=https://e.x]y[/link]"
ESCAPES = " \x1b[2J\x1b]0;owned\x07"  # clear the screen, set the terminal's title
WIDE = {"COLUMNS": "300"}


def test_display_helpers_escape_markup_and_show_control_characters():
    assert display.visible("a\x1b[2J\tb\nc\u202e") == "a\\x1b[2J\tb\nc\\u202e"
    assert display.visible("a\tb\nc", one_line=True) == "a\\x09b\\x0ac"
    assert display.visible("x" * 50, 10) == "x" * 10 + " ..."
    out = StringIO()
    console = Console(file=out, width=200)
    console.print(f"[red]{display.markup(MARKUP + chr(27))}[/red]", display.text(MARKUP))
    assert out.getvalue().count(MARKUP) == 2 and "\x1b" not in out.getvalue()


def test_a_csv_cell_is_one_line_of_visible_text_never_a_formula():
    # A display name reaches CSV files (summary.csv, `grader export`, and `nbgrader export` through the
    # gradebook): ESC and the overrides raw there reached whoever printed or opened the file.
    assert display.spreadsheet_cell("=HYPERLINK(1)\x1b[2J\n\u202e") == "'=HYPERLINK(1)\\x1b[2J\\x0a\\u202e"
    assert display.spreadsheet_cell("\x1b=1") == "\\x1b=1"  # a backslash starts no formula
    assert display.spreadsheet_cell("-0.5") == "-0.5" and display.spreadsheet_cell(None) == ""


def test_grade_table_mode(tmp_path):
    course = make_toy_course(tmp_path / "course")
    submission = tmp_path / "[red]eve"  # a folder name is the student's too
    submission.mkdir()
    shutil.copy(HOSTILE, submission / "toy.py")
    (submission / "other.py").write_text("from toy import scale  # noqa\n")
    proc = run_grader("grade", "--course", str(course), str(submission), env=WIDE)
    assert proc.returncode == 0, proc.stderr
    assert MARKUP in proc.stdout and "\\x1b[2J" in proc.stdout, proc.stdout
    assert "[red]eve" in proc.stdout and "\x1b" not in proc.stdout


def test_grade_class(tmp_path):
    course = make_toy_course(tmp_path / "course")
    submissions = tmp_path / "class"
    submissions.mkdir()
    shutil.copy(HOSTILE, submissions / "alice.py")
    # A folder whose name is no student id is a student under an id made of it (issue 27: nothing is
    # dropped); its markup is never interpreted, and the id holds none.
    name = "[red]x[link=e.x]y"
    (submissions / name).mkdir()
    (submissions / name / "toy.py").write_text(solution_source())
    proc = run_grader(
        "grade-class", str(submissions), "--course", str(course), "--out", str(tmp_path / "out"), "-j", "1", env=WIDE
    )
    assert proc.returncode == 0, proc.stderr
    assert "graded alice" in proc.stderr and f"graded {name_id(name)} 3/4" in proc.stderr, proc.stderr
    assert "[" not in name_id(name) and "\x1b" not in proc.stderr


def test_session_events_print_what_a_worker_says_literally():
    """A refusal's or a lost session's reason comes from a worker (a Dask worker is anyone's machine);
    grade-class and autograde print it, its session and the student literally (autograde's own copy
    of these lines escaped the markup but let terminal control through)."""
    from grader.autograde.pipeline import SessionNotices
    from grader.classgrade.command import ClassProgress

    reason = f"{MARKUP}[bold]x[/]{ESCAPES}"
    shown = f"{MARKUP}[bold]x[/] \\x1b[2J\\x1b]0;owned\\x07"
    for make in (lambda console: ClassProgress(console, "class", "here"), SessionNotices):
        out = StringIO()
        listener = make(Console(file=out, width=300))
        listener.refused("w[bold]0", reason)
        listener.retry("[red]eve", "w[/]1", reason)
        printed = out.getvalue()
        assert f"refused w[bold]0: {shown}" in printed, printed
        assert f"w[/]1 lost [red]eve ({shown}); grading it again elsewhere" in printed, printed
        assert "\x1b" not in printed
    out = StringIO()
    progress = ClassProgress(Console(file=out, width=300), "class", "here")
    progress.failed("[red]eve", reason)
    progress.lost("w[/]1")
    printed = out.getvalue()
    assert f"could not grade [red]eve: {shown}" in printed and "lost the grading session w[/]1" in printed, printed


def test_check(tmp_path):
    submission = tmp_path / "work"
    submission.mkdir()
    module = (ROOT / "exercises" / "score_functions.py").read_text()
    (submission / "score_functions.py").write_text(
        module + f"\n\ndef stable_softmax(logits):\n    raise ValueError({MARKUP + ESCAPES!r})\n"
    )
    proc = run_grader("check", str(submission), "--only", "stable_softmax", env=WIDE)
    assert proc.returncode == 1, proc.stderr
    assert f"raised ValueError: {MARKUP} \\x1b[2J\\x1b]0;owned\\x07" in proc.stdout, proc.stdout
    assert "\x1b" not in proc.stdout


def hostile_result(course) -> SubmissionResult:
    tests = [
        Outcome("test_small", False, 1.0, f"double raised ValueError: {MARKUP}"),
        Outcome("test_zero", True, 1.0, ""),
    ]
    functions = {
        "double": FunctionResult("double", "a1", 1.0, 2.0, tests, None),
        "add": FunctionResult("add", "a1", 0.0, 1.0, [], f"could not import toy.py: {MARKUP}"),
    }
    return SubmissionResult(submission=f"submissions/{MARKUP}", functions=functions)


def test_demo_style_tables(tmp_path):
    course = load_course(make_toy_course(tmp_path / "course"))
    out = StringIO()
    Console(file=out, width=300).print(grade_table(hostile_result(course)))
    assert out.getvalue().count(MARKUP) == 3, out.getvalue()  # the title, a message, an error


def test_autograde_details(tmp_path, monkeypatch, capsys):
    from grader.autograde import command, pipeline

    course = load_course(make_toy_course(tmp_path / "course"))
    record = GradeRecord(
        student="[red]eve",
        submission="[red]eve",
        result=hostile_result(course),
        assignment="a1",
        notes={"": [f"a note quoting a cell: {MARKUP}"]},
    )
    state = SimpleNamespace(
        warnings=[f"warning {MARKUP}"],
        restored=[f"[red]eve: {MARKUP}"],
        students=["[red]eve"],
        records={"[red]eve": record},
        rescued=["[red]eve"],
        mismatches=[f"[red]eve {MARKUP}"],
        seconds={"grade": 1.0},
        late={},
        final={"[red]eve": (1.0, [f"double {MARKUP}"])},
        inputs=SimpleNamespace(course=course, gradebook=SimpleNamespace(shown=f"sqlite:///{MARKUP}.db")),
    )
    monkeypatch.setattr(pipeline.AutogradeInputs, "of", classmethod(lambda cls, *args, **kwargs: None))
    monkeypatch.setattr(pipeline, "autograde", lambda *args, **kwargs: state)
    monkeypatch.setenv("COLUMNS", "300")
    args = argparse.Namespace(
        course=str(course.root),
        course_dir=str(tmp_path / "nbgrader"),
        assignment=["a1"],
        student=None,
        jobs=1,
        zip=None,
        roster=None,
        name_regexp=None,
        lms="auto",
        details=True,
        require_sandbox=False,
        no_sandbox=False,
        db=None,
        scheduler=None,
        out=None,
    )
    assert command.run(args) == 1  # the mismatch
    printed = capsys.readouterr().out
    assert "[red]eve (rescued)" in printed
    for line in (
        f"warning {MARKUP}",
        f"double raised ValueError: {MARKUP}",
        f"a note quoting a cell: {MARKUP}",
        f"mismatch [red]eve {MARKUP}",
        f"tampering undone: [red]eve: {MARKUP}",
        f"(manual: double {MARKUP};",
    ):
        assert line in printed, (line, printed)


def test_a_worker_reason_is_one_bounded_line():
    """A reason can carry a student's exception text: the console shows one line of bounded length."""
    from grader.engine.events import REASON_CHARS, failed_message, retry_message

    long = "x" * 100_000 + "\n[bold]tail"
    for message in (retry_message("s" * 5000, "w1", long), failed_message("alice", long)):
        assert "\n" not in message and "tail" not in message
        assert len(message) < REASON_CHARS + 400, len(message)
