"""Attacks on the replay fast path (grader.core.replay) that succeed on the code as it was reviewed.

Each test is one hostile submission (or its replies) and the grade or the cost it should
have had: with replay on, a submission must earn what it earns with replay off, and what
one submission makes the trusted process keep must not outlive its grading.
"""

from __future__ import annotations

import re
import shutil
from pathlib import Path

import pytest

from grader.core.course import load_course
from grader.engine.driver import grade_here
from grader.engine.parcel import Parcel
from grader.worker import runtime
from tests.helpers import ROOT, use_cache
from tests.toy_course import make_toy_course, solution_source

COURSE = load_course(ROOT)


@pytest.fixture
def cache(tmp_path, monkeypatch):
    return use_cache(monkeypatch, tmp_path / "cache")


def scores(record) -> dict[str, float]:
    return {name: f.score for name, f in record.result.functions.items()}


# -- earning points the code does not earn --------------------------------------------------------
HEDGED = """

# Two candidate answers, and the grade of whichever is right: the first is given when the worker
# is answering a replay batch (its frame is on the stack), the second when a test asks.
_CANDIDATES = (
    ("unbiased", "unbiased", "unbiased", "biased", "scaled"),
    ("biased", "biased", "biased", "unbiased", "unbiased"),
)


def __getattr__(name):
    if name == "baseline_validity":
        import inspect

        batched = any(f.function == "batch" for f in inspect.stack())
        return _CANDIDATES[0] if batched else _CANDIDATES[1]
    raise AttributeError(name)
"""


def test_a_hedged_concept_answer_is_graded_on_one_answer(tmp_path, cache):
    """A module ``__getattr__`` that tells a replay batch from a test (its frame on the stack) answers
    two different tuples. Reviewed, the submission scored whichever was right: the batch's prefix of
    agreeing parts was credited and the others were asked again, alone (3/3 with replay, 0/3 without).
    Now a submission answers each hidden input once: the tests read what its batch answered. So each
    order of the two candidates earns what a submission giving the batch's candidate alone earns, and
    the two orders together no more than the two candidates without replay."""
    only = ["baseline_validity", "same_group_scale"]

    def submission(name: str, source: str) -> Path:
        folder = tmp_path / name
        shutil.copytree(COURSE.solutions_dir, folder)
        checks = folder / "concept_checks.py"
        text = re.sub(r"^baseline_validity = .*$", "", checks.read_text(encoding="utf-8"), flags=re.M)
        checks.write_text(text + source, encoding="utf-8")
        return folder

    swapped = HEDGED.replace("return _CANDIDATES[0] if batched else _CANDIDATES[1]", "return _CANDIDATES[int(batched)]")
    folders = {
        "hedger": submission("hedger", HEDGED),
        "swapped": submission("swapped", swapped),
        "first_only": submission("first_only", HEDGED.replace("if batched else _CANDIDATES[1]", "")),
        "second_only": submission("second_only", HEDGED.replace("_CANDIDATES[0] if batched else ", "")),
    }
    # Two reference submissions first: the session records the traces with the second.
    parcels = [Parcel.read(n, COURSE.solutions_dir) for n in ("first", "second")]
    parcels += [Parcel.read(name, folder) for name, folder in folders.items()]
    off = grade_here(COURSE, parcels, only=only, replay=False)
    on = grade_here(COURSE, parcels, only=only, replay=True)
    points = {name: (scores(off[name])["baseline_validity"], scores(on[name])["baseline_validity"]) for name in folders}
    assert points["first_only"][0] == points["first_only"][1] > 0  # the right candidate
    assert points["second_only"][0] == points["second_only"][1] == 0
    assert points["hedger"] == (0, points["first_only"][0])  # off: asked alone, the second; on: the batch's
    assert points["swapped"][1] == 0  # the batch's candidate is wrong: the tests read it, not the right one
    assert points["hedger"][1] + points["swapped"][1] <= points["first_only"][0] + points["second_only"][0]


# -- costing the class: what one submission leaves in the trusted process ----------------------------
PADDED_HEADERS = '''
import struct
import sys

import numpy as np

_sent = [0]


def _pad(dump):
    """np.save's bytes with the header padded with spaces to about 60 KB, a new length each time
    (a valid header: the wire's pattern ends in any whitespace)."""

    def padded(array):
        raw = dump(array)
        (n,) = struct.unpack("<H", raw[8:10])
        _sent[0] += 1
        header = raw[10 : 10 + n].rstrip(b"\\n") + b" " * (60000 + _sent[0] - n) + b"\\n"
        return raw[:8] + struct.pack("<H", len(header)) + header + raw[10 + n :]

    return padded


def double(x):
    wire = next(m for m in list(sys.modules.values()) if hasattr(m, "dump_npy") and hasattr(m, "Worker"))
    if not getattr(wire.dump_npy, "padding", False):
        wire.dump_npy = _pad(wire.dump_npy)
        wire.dump_npy.padding = True
    return tuple(2.0 * np.asarray(x, dtype=float) for _ in range(10))
'''


def test_a_submissions_array_headers_do_not_outlive_its_grading(tmp_path, cache, monkeypatch):
    """The trusted side keeps every valid ``.npy`` header it reads, up to 4,096 of them, for the
    life of the process (runtime._HEADERS, added with the replay); a valid header may be padded
    with whitespace to 64 KiB. A submission whose arrays carry padded headers, each of another
    length, leaves them all there: 10 arrays a reply, 7 replies, about 4 MiB after one toy
    submission, and 4,096 headers (250 MiB) for the rest of the class once a few submissions
    have filled it (ten times the evidence a submission may keep, 48 MiB, and never given back)."""
    monkeypatch.setattr(runtime, "_HEADERS", {})
    course = load_course(make_toy_course(tmp_path / "toy"))
    source = solution_source()
    source = source[: source.index("def double")] + PADDED_HEADERS + source[source.index("def add") :]
    (tmp_path / "padder.py").write_text(source, encoding="utf-8")
    records = grade_here(course, [Parcel.read("padder", tmp_path / "padder.py")])
    assert records["padder"].result.functions["double"].score == 0  # its tuples fail every test
    kept = sum(len(header) for header in runtime._HEADERS)
    assert kept < 2**20, f"{kept / 2**20:.1f} MiB of one submission's array headers kept by the grader"


def test_decoding_replies_keeps_a_bounded_number_of_header_bytes(monkeypatch):
    """The same, at the boundary: 4,096 replies of one padded array each (well within the reply
    limit) leave 250 MiB in the trusted process."""
    import base64

    import numpy as np

    monkeypatch.setattr(runtime, "_HEADERS", {})
    header = b"{'descr': '<f8', 'fortran_order': False, 'shape': (1,), }"
    for i in range(runtime.HEADER_CACHE):
        padded = header + b" " * (60000 + i) + b"\n"
        raw = b"\x93NUMPY\x01\x00" + len(padded).to_bytes(2, "little") + padded + np.float64(1.0).tobytes()
        assert runtime.decode({"__ndarray__": base64.b64encode(raw).decode("ascii")}).tolist() == [1.0]
    kept = sum(len(h) for h in runtime._HEADERS)
    assert kept <= 16 * 2**20, f"{kept / 2**20:.0f} MiB of array headers kept"


# -- losing limits --------------------------------------------------------------------------------
SLOW_RATIO = """

# A sequence_probability_ratio that needs 0.15 s of CPU a call: 49 calls, 7.4 s, and its limit is 5 s.
import sys as _sys
import threading as _threading
import time as _time

_reference_ratio = sequence_probability_ratio
_answers = {}


def _key(value):
    if isinstance(value, np.ndarray):
        return ("array", value.dtype.str, value.shape, value.tobytes())
    if isinstance(value, (list, tuple)):
        return (type(value).__name__,) + tuple(_key(v) for v in value)
    if isinstance(value, dict):
        return ("dict",) + tuple(sorted((k, _key(v)) for k, v in value.items()))
    return ("value", type(value).__name__, repr(value))


def _slow(args, kwargs):
    started = _time.process_time()
    while _time.process_time() - started < 0.15:
        pass
    try:
        return ("ok", _reference_ratio(*args, **kwargs))
    except Exception as exc:  # noqa: BLE001
        return ("raised", exc)


def sequence_probability_ratio(*args, **kwargs):
    if _sys._getframe(1).f_globals is globals():  # this module's own functions call the fast one
        return _reference_ratio(*args, **kwargs)
    found = _answers.get(_key((list(args), kwargs)))
    if found is None:
        found = _slow(args, kwargs)
    if found[0] == "raised":
        raise found[1]
    return found[1]


def _install():
    wire = next(m for m in list(_sys.modules.values()) if hasattr(m, "Worker") and hasattr(m, "dump_npy"))
    if getattr(wire.Worker.batch, "installed", False):
        return

    def batch(self, request):
        requests = request.get("requests") or []
        mine = [r for r in requests if r.get("function") == "sequence_probability_ratio"]
        if mine:  # its hidden inputs, all of them, before any of its tests runs: compute them meanwhile
            def work():
                for r in mine:
                    args, kwargs = wire.decode(r.get("args", [])), wire.decode(r.get("kwargs", {}))
                    _answers[_key((list(args), kwargs))] = _slow(args, kwargs)

            _threading.Thread(target=work, daemon=True).start()
        # Every batch disagrees: nothing is charged, and the tests run as always (the other functions
        # are right), the grader's own time between them given to the thread.
        return {"ok": True, "replies": [{"ok": True, "value": "not an answer"} for _ in requests]}

    batch.installed = True
    wire.Worker.batch = batch
    call = wire.Worker.call

    def slower_call(self, request):
        # Every other function takes 30 ms a call, well within its own limit (about 50 calls of 5 s):
        # with replay, that time is the thread's.
        if request.get("function") != "sequence_probability_ratio":
            _time.sleep(0.03)
        return call(self, request)

    wire.Worker.call = slower_call


_install()
"""


def test_a_function_over_its_time_limit_does_not_pass_by_computing_its_batch_in_the_background(tmp_path, cache):
    """A batch hands the worker every hidden input of an exercise before any of its tests runs, and a
    batch that disagrees is charged nothing. A submission whose sequence_probability_ratio needs 7.4 s
    (limit 5 s) starts a thread on its batch's inputs, answers every batch wrong (its other functions,
    right, are then graded by their tests, 30 ms a call: within their own limits), and the thread has
    the answers ready when the ratio's tests come: 1/1 with replay, a time limit (0/1) without."""
    submission = tmp_path / "slow"
    shutil.copytree(COURSE.solutions_dir, submission)
    with open(submission / "response_tokens.py", "a", encoding="utf-8") as out:
        out.write(SLOW_RATIO)
    units = [e.function for e in COURSE.exercises if e.kind != "lab"]
    off = grade_here(COURSE, [Parcel.read("slow", submission)], only=units, replay=False)
    # A reference submission first: the session records the traces before grading the second.
    on = grade_here(
        COURSE, [Parcel.read("first", COURSE.solutions_dir), Parcel.read("slow", submission)], only=units, replay=True
    )
    ratio = off["slow"].result.functions["sequence_probability_ratio"]
    assert (ratio.score, ratio.error_kind) == (0, "time limit")
    # Its tests read what its batch answered (wrong), not the thread's later answers: nothing is gained.
    assert scores(on["slow"])["sequence_probability_ratio"] == 0
    assert on["slow"].result.total <= off["slow"].result.total
