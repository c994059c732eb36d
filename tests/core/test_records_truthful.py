"""Records that cannot lie (issue 22, item 7): fingerprints, limit events, current records only."""

from __future__ import annotations

import numpy as np

from grader.core.course import load_course
from grader.core.diagnosis import Call
from grader.core.fingerprint import files_fingerprint
from grader.core.plugin import GradingPlugin
from grader.core.results import TestOutcome
from grader.core.submission import FunctionUnavailable
from tests.helpers import ROOT

COURSE = load_course(ROOT, check_tests=False)


def test_two_different_folders_never_share_a_fingerprint():
    # name\0data\0 without lengths: one file holding "x\0b.py\0y" digested like two files.
    one = {"a.py": b"x\0b.py\0y"}
    two = {"a.py": b"x", "b.py": b"y"}
    assert files_fingerprint(one) != files_fingerprint(two)
    assert files_fingerprint({"a.py": b""}) != files_fingerprint({"a.py\0": b""})


def test_an_error_in_the_diagnosis_keeps_every_limit_event(tmp_path):
    # A student's value that overflows float (an int of 400 digits) made the diagnosis raise in
    # the fixture's teardown; the submission's result was then rebuilt without its states, and a
    # function that had used up its time limit kept the points of the tests it had passed.
    timed_out, other = COURSE.functions[:2]
    plugin = GradingPlugin(COURSE, {"s": tmp_path})
    submission = plugin.open_submission("s")
    plugin.record("s", timed_out, TestOutcome("passed before the limit", True, 1.0, "", "property"))
    submission.state(timed_out).unavailable = FunctionUnavailable(
        "time limit exceeded (2 s)", f"{timed_out} used up its time limit", "time limit"
    )
    plugin.record(
        "s", other, TestOutcome("wrong", False, 1.0, "wrong", "property"), [Call((np.zeros(3),), {}, 10**400)]
    )
    plugin.close_submission("s")
    functions = plugin.states["s"].result.functions
    assert functions[timed_out].error_kind == "time limit"
    assert functions[timed_out].score == 0
    assert functions[other].score == 0


def test_every_student_string_is_valid_utf8_once_at_the_boundary():
    # A lone surrogate in an exception message stopped `grader report`, `grader grade` and the
    # autograde of the next assignment (strict UTF-8 writes and console prints).
    from grader.display import visible
    from grader.worker.replies import parse_reply

    reply = parse_reply(
        b'{"ok": false, "kind": "raised", "error_type": "E\\udc80", "message": "x\\ud800",'
        b' "where": ["f\\udfff"], "value": {"__dict__": {"\\udcff": ["\\ud800"]}}}'
    )
    json_text = __import__("json").dumps(reply, ensure_ascii=False)
    json_text.encode("utf-8")  # strict, as records and reports are written
    assert "\\ud800" in reply["message"]
    visible("a file name \udcff").encode("utf-8")
