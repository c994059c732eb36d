"""The trusted side bounds every reply of a worker before decoding it (grader/worker/replies.py)."""

from __future__ import annotations

import json
import tracemalloc

import pytest

from grader.worker import replies, runtime
from grader.worker.replies import ReplyRejected, check_structure, parse_reply


def reply(**fields) -> bytes:
    return json.dumps({"ok": False, "kind": "raised", **fields}).encode()


def test_a_legitimate_reply_passes_unchanged():
    value = runtime.encode({"a": (1.5, [1, 2, 3]), "b": __import__("numpy").arange(4.0)})
    data = json.dumps({"ok": True, "value": value}).encode()
    assert parse_reply(data) == {"ok": True, "value": value, "where": [], "builtin_bases": []}


@pytest.mark.parametrize(
    "data, what",
    [
        (b'{"ok":true,"value":[' + b"[]," * 20_000 + b"[]]}", "lists"),
        (b'{"ok":true,"value":' + b"[" * 200 + b"]" * 200 + b"}", "nested"),
        (b'{"ok":true,"value":[' + b"0," * 300_000 + b"0]}", "elements"),
        (b'{"ok":true,"value":' + b"9" * 5000 + b"}", "digits"),
        (b'{"ok":true,"value":[' + b"{}," * 20_000 + b"{}]}", "dicts"),
    ],
)
def test_structure_bombs_are_refused_by_what_they_are(data, what):
    with pytest.raises(ReplyRejected, match=what):
        parse_reply(data)


def test_brackets_inside_strings_do_not_count():
    text = "[" * 50_000 + '\\"{' * 1000
    check_structure(json.dumps({"ok": True, "value": text}).encode())


def test_the_scan_of_a_bomb_builds_no_objects():
    # What json.loads alone would turn into ~30x its size in lists.
    bomb = b'{"ok":true,"value":[' + b"[]," * 300_000 + b"[]]}"
    tracemalloc.start()
    try:
        with pytest.raises(ReplyRejected):
            parse_reply(bomb)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert peak < 3 * len(bomb), f"the scan allocated {peak / 2**20:.1f} MiB for a {len(bomb) / 2**20:.1f} MiB reply"


@pytest.mark.parametrize(
    "data",
    [
        b"not json",
        b"[1, 2]",
        b'{"kind": "raised"}',
        b'{"ok": "yes"}',
        b"\xff\xfe",
        reply(message=5),
        reply(where="line 1"),
        reply(where=[1, 2]),
    ],
)
def test_malformed_replies_are_refused(data):
    with pytest.raises(ReplyRejected):
        parse_reply(data)


def test_every_text_is_bounded_and_visible():
    data = reply(
        error_type="E" * 10_000,
        message="m" * 1_000_000 + "\x1b[2J",
        where=["w" * 5000] * 1000,
        builtin_bases=["ValueError", "not a name", "B" * 500] * 1000,
        extra="x" * 1000,
        kind="bogus",
    )
    got = parse_reply(data)
    assert set(got) == {"ok", "kind", "error_type", "message", "where", "builtin_bases"}
    assert got["kind"] == "protocol"
    assert len(got["error_type"]) <= replies.MAX_ERROR_TYPE + 4
    assert len(got["message"]) <= runtime.MAX_TEXT + 4
    assert len(got["where"]) == replies.MAX_WHERE_LINES and all(len(w) <= replies.MAX_WHERE + 4 for w in got["where"])
    assert got["builtin_bases"] == ["ValueError"] * 7  # the first 20, names only


def test_control_characters_are_shown_not_obeyed():
    got = parse_reply(reply(message="a\x1b[31mred\x07\r\u202eevil\tok\nnext", error_type="E\x00"))
    assert got["message"] == "a\\x1b[31mred\\x07\\x0d\\u202eevil\tok\nnext"
    assert got["error_type"] == "E\\x00"


def test_course_yaml_sets_the_reply_limit_and_an_honest_big_value_costs_its_call(tmp_path):
    import numpy as np

    from grader.core.course import load_course
    from grader.core.submission import Submission, UnsupportedReturn
    from grader.sandbox import SandboxLauncher
    from grader.sandbox.limits import Limits
    from tests.toy_course import make_toy_course

    root = make_toy_course(tmp_path / "course")
    (root / "course.yaml").write_text(
        (root / "course.yaml").read_text().replace("output_kb: 8", "output_kb: 8\n  reply_kb: 4")
    )
    course = load_course(root)
    limits = Limits.from_course(course)
    assert limits.reply_bytes == 4096
    (tmp_path / "sub").mkdir()
    (tmp_path / "sub" / "toy.py").write_text("import numpy as np\n\ndef double(x):\n    return 2.0 * np.asarray(x)\n")
    with SandboxLauncher(limits, sandbox="off") as launcher:
        submission = Submission(tmp_path / "sub", course, launcher=launcher)
        try:
            with pytest.raises(UnsupportedReturn, match="more than the grader accepts"):
                submission.call("double", (np.zeros(1000),), {})
            # The worker said so itself; the same worker answers the next call.
            pid = submission.worker._handle.pid
            assert np.array_equal(submission.call("double", (np.ones(3),), {})["value"], np.full(3, 2.0))
            assert submission.worker._handle.pid == pid
        finally:
            submission.close()


MiB = 1 << 20
HOSTILE_TEXTS = {
    "escaped quotes": b'{"ok":true,"value":"' + b'\\"' * (MiB // 2),
    "escaped backslashes": b'{"ok":true,"value":"' + b"\\\\" * (MiB // 2),
    "escaped quotes, closed": b'{"ok":true,"value":"' + b'\\"' * (MiB // 2) + b'"}',
    "unterminated escapes": b'{"ok":true,"value":"' + b'\\"a' * (MiB // 3),
    "bare quotes": b'{"ok":true,"value":[' + b'"' * MiB,
    "empty strings": b'{"ok":true,"value":[' + b'"",' * (MiB // 3) + b'""]}',
    "400-digit numbers": b'{"ok":true,"value":[' + (b"9" * 400 + b",") * (MiB // 401) + b"0]}",
    "brackets in a string": b'{"ok":true,"value":"' + b"[" * MiB + b'"}',
}


@pytest.mark.parametrize("name", HOSTILE_TEXTS)
def test_reading_a_reply_costs_time_linear_in_its_size(name):
    # A reply of the default limit (1 MiB), shaped against a scanner's worst case. The old
    # backtracking scan took 7.8 s of CPU on 64 KB of escaped quotes (quadratic: ~30 min
    # on 1 MiB), so the test stops it at 2 s of CPU rather than wait.
    import signal
    import time

    def too_slow(*_):
        raise TimeoutError(f"reading 1 MiB of {name} took more than 2 s of CPU")

    previous = signal.signal(signal.SIGPROF, too_slow)
    signal.setitimer(signal.ITIMER_PROF, 2.0)
    started = time.process_time()
    try:
        try:
            parse_reply(HOSTILE_TEXTS[name])
        except ReplyRejected:
            pass
    finally:
        signal.setitimer(signal.ITIMER_PROF, 0)
        signal.signal(signal.SIGPROF, previous)
    assert time.process_time() - started < 0.5
