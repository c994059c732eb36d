"""What student code can reach in its worker during a replay: its own exercise's inputs, nothing else.

Before the replay, a function saw only its own inputs, one call at a time. A replay sends the
traced tests' requests to the worker ahead of the calls; if it sent every exercise's at once, a
function could walk up the worker's stack (or the collector's objects, or the request pipe's
unread bytes) to the requests of the other exercises and put their hidden inputs into its own
error message, which feedback shows (security review, issue #30 item 2).
"""

from __future__ import annotations

import json

import pytest

from grader.core.course import load_course
from grader.engine.driver import grade_here
from grader.engine.parcel import Parcel
from grader.worker import client, runtime
from tests.helpers import use_cache
from tests.toy_course import make_toy_course, solution_source


@pytest.fixture
def cache(tmp_path, monkeypatch):
    return use_cache(monkeypatch, tmp_path / "cache")


# Every function first looks around its worker for requests of another exercise (on the stack, among
# the collector's objects, in the request pipe's unread bytes) and keeps what it finds; once it has
# found something, every call raises with it, so that the feedback shows it.
SNOOP = """
import fcntl as _fcntl
import gc as _gc
import sys as _sys
import termios as _termios

_FOUND = []


def _requests(value, depth=0):
    if depth > 6:
        return
    if isinstance(value, dict):
        if value.get("op") in ("call", "map", "get") and "module" in value:
            yield value
        for item in list(value.values()):
            yield from _requests(item, depth + 1)
    elif isinstance(value, (list, tuple)):
        for item in list(value)[:5000]:
            yield from _requests(item, depth + 1)


def _snoop(own):
    seen = []
    frame = _sys._getframe(1)
    while frame is not None:
        seen += _requests(dict(frame.f_locals))
        frame = frame.f_back
    for value in _gc.get_objects():
        if isinstance(value, dict) and value.get("op") in ("call", "map", "get") and "module" in value:
            seen.append(value)
    for request in seen:
        name = request.get("function", request.get("name"))
        if name != own and not any(f.startswith(str(name)) for f in _FOUND):
            _FOUND.append("%s%s" % (name, str(request.get("args", ""))[:60]))
    for fd in range(3, 64):  # a pipe that holds bytes the worker has not read yet
        try:
            unread = _fcntl.ioctl(fd, _termios.FIONREAD, b"\\0\\0\\0\\0")
        except OSError:
            continue
        if int.from_bytes(unread, _sys.byteorder):
            _FOUND.append("unread bytes on fd %d" % fd)
    if _FOUND:
        raise ValueError("found: " + "; ".join(_FOUND))
"""


def snooping_source() -> str:
    source = SNOOP + solution_source()
    for name, header in (("double", "def double(x):"), ("add", "def add(a, b):"), ("scale", "def scale(x, factor):")):
        end = source.index("\n", source.index(header))
        source = source[: end + 1] + f"    _snoop({name!r})\n" + source[end + 1 :]
    return source


def test_a_replayed_function_reaches_no_request_of_another_exercise(tmp_path, cache, monkeypatch):
    """A function that looks for other exercises' requests in its worker finds none, with the replay
    on as with it off: it earns full marks either way, and no message names another exercise's inputs.
    On the code as reviewed, one ``batches`` request carried every exercise's traced tests: ``double``
    found ``add``'s and ``scale``'s requests on the stack and every test failed quoting them."""
    course = load_course(make_toy_course(tmp_path / "toy"))
    (tmp_path / "reference.py").write_text(solution_source(), encoding="utf-8")
    (tmp_path / "snoop.py").write_text(snooping_source(), encoding="utf-8")
    # The traces are recorded with the second reference submission.
    grade_here(course, [Parcel.read(n, tmp_path / "reference.py") for n in ("first", "second")], replay=True)
    sent: list[dict] = []
    send = client.WorkerProcess.send

    def counting(self, message, timeout):
        sent.append(json.loads(message[runtime.HEADER.size :]) if isinstance(message, bytes) else message)
        return send(self, message, timeout)

    monkeypatch.setattr(client.WorkerProcess, "send", counting)
    for replay in (False, True):
        record = grade_here(course, [Parcel.read("snoop", tmp_path / "snoop.py")], replay=replay)["snoop"]
        messages = [t.message for f in record.result.functions.values() for t in f.tests if not t.passed]
        assert messages == [], (replay, messages[:2])
        assert {n: f.score for n, f in record.result.functions.items()} == {"double": 2, "add": 1, "scale": 1}
    # The replay did replay: every exercise's tests went in a batch, each exercise's in a request of its own.
    batches = [m for m in sent if m.get("op") == "batches"]
    exercises = [{r["function"] for b in m["batches"] for r in b["requests"]} for m in batches]
    assert sorted(exercises, key=min) == [{"add"}, {"double"}, {"scale"}]
