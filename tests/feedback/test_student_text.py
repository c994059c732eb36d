"""Student text in feedback: what a student needs to read their own error, no more (issue 30, item 3).

An error is the one text a submission writes into its feedback: the type, the message and the line
it came from. During the hidden tests' replay, a function read other exercises' hidden inputs and
carried them out in its error message, which feedback showed at up to 2,000 characters. Now the
type is cut to 60 characters, the message to 300, and only the innermost line of the submission is
kept, cut to 120, whatever the worker sent: what every feedback (the Markdown and HTML pages, nbgrader's
and Gradescope's reports) shows of a submission's error.
"""

from __future__ import annotations

import re

import pytest

from grader.core.course import load_course
from grader.engine.driver import grade_here
from grader.engine.parcel import Parcel
from grader.feedback import function_report
from grader.studentfeedback.write import render_html, render_markdown
from grader.worker import replies, runtime
from tests.toy_course import make_toy_course

# Digits stand for what a function could carry out (another exercise's hidden inputs, say).
CARRIED = "".join(str(i % 10) for i in range(2000))
SUBMISSION = f'''
import os

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))


def double(x):
    raise ValueError("{CARRIED}")


# A type, a function and a file name of the student's own making, each far longer than a name needs.
_code = compile(
    "def " + "f" * 1000 + "():\\n    raise type('E' * 500, (ValueError,), {{}})('x' * 2000)\\n",
    os.path.join(HERE, "w" * 40 + ".py"),
    "exec",
)
_space = {{}}
exec(_code, _space)


def add(a, b):
    _space["f" * 1000]()


def scale(x, factor):
    return np.asarray(x, dtype=float) * factor
'''


def longest_run(text: str, alphabet: str) -> int:
    return max((len(m) for m in re.findall(f"[{alphabet}]+", text)), default=0)


@pytest.fixture(scope="module")
def record(tmp_path_factory):
    base = tmp_path_factory.mktemp("student-text")
    course = load_course(make_toy_course(base / "course"))
    (base / "mallory.py").write_text(SUBMISSION)
    records = grade_here(course, [Parcel.read("mallory", base / "mallory.py")])
    return records["mallory"]


def test_an_error_message_reaches_feedback_cut_to_a_few_hundred_characters(record):
    # Before: all 2,000 characters of the message, in every feedback.
    pages = {
        "markdown": render_markdown(record, "Toy"),
        "html": render_html(record, "Toy"),
        "report": function_report(record, "double"),
    }
    for name, page in pages.items():
        assert CARRIED[:50] in page, f"{name}: the student no longer reads their own message"
        shown = longest_run(page, "0-9")
        assert 50 <= shown <= runtime.MAX_TEXT <= 300, f"{name}: {shown} characters of the message"
    assert record.result.functions["scale"].score == record.result.functions["scale"].max


def test_type_and_line_are_the_students_own_and_short(record):
    report = function_report(record, "add")
    assert "line 2, in ff" in report, report  # their own file and line, still named
    assert longest_run(report, "E") <= replies.MAX_ERROR_TYPE, report
    assert longest_run(report, "x") <= runtime.MAX_TEXT, report
    # the whole "where" (file name, line, function name) in at most 120 characters
    assert longest_run(report, "w") + longest_run(report, "f") <= replies.MAX_WHERE, report
    every = " ".join(m for f in record.result.functions.values() for m in [f.error or "", *f.messages])
    assert len(every) < 3 * (replies.MAX_ERROR_TYPE + runtime.MAX_TEXT + replies.MAX_WHERE) + 1500, len(every)


def test_escapes_count_against_the_bound():
    """Control characters are shown as escapes (``\\x1b``): the bound holds for what is shown."""
    data = (
        b'{"ok": false, "kind": "raised", "error_type": "E", "message": "'
        + b"\\u001b" * 5000
        + b'", "where": ["'
        + b"\\u202e" * 500
        + b'"]}'
    )
    reply = replies.parse_reply(data)
    assert len(reply["message"]) <= runtime.MAX_TEXT + 4 and reply["message"].startswith("\\x1b")
    assert len(reply["where"][0]) <= replies.MAX_WHERE + 4 and "\u202e" not in reply["where"][0]
