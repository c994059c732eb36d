"""Attacks on the replay fast path (grader.core.replay) that succeeded on the code as reviewed (two reviews).

Each test is one hostile submission (or its replies) and the grade or the cost it should
have had: with replay on, a submission must earn what it earns with replay off (``--no-replay``),
and what one submission makes the trusted process keep must be bounded and must not outlive its
grading.
"""

from __future__ import annotations

import re
import shutil
import sys
import time
from pathlib import Path

import pytest

from grader.core.course import load_course
from grader.core.diagnosis import SUBMISSION_EVIDENCE_BYTES
from grader.core.replay import INCONCLUSIVE_SECONDS, BatchRunner
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


# A module ``__getattr__`` that answers a wrong tuple the first time the worker reads the name
# (``get`` reads it twice: hasattr, then getattr) and the right one every time after.
LATE_ANSWER = """

_READS = [0]


def __getattr__(name):
    if name == "baseline_validity":
        _READS[0] += 1
        if _READS[0] <= 2:
            return ("biased", "biased", "biased", "unbiased", "unbiased")
        return ("unbiased", "unbiased", "unbiased", "biased", "scaled")
    raise AttributeError(name)
"""


def test_a_value_read_once_per_test_is_answered_once(tmp_path, cache):
    """Without replay, a module-level value is read once: the parts of a concept check that read it
    again, with no student code run in between, are answered from the trusted side's copy
    (``Submission._read``), so every part is graded on the first answer (0 here). With replay, the
    batch asks the worker once per part and each part's test then reads its own batch reply
    (``grader.core.replay.Recorded``): a value that changes on the second read earns every part but the
    first. The same code must earn the same points either way."""
    folder = tmp_path / "late"
    shutil.copytree(COURSE.solutions_dir, folder)
    checks = folder / "concept_checks.py"
    text = re.sub(r"^baseline_validity = .*$", "", checks.read_text(encoding="utf-8"), flags=re.M)
    checks.write_text(text + LATE_ANSWER, encoding="utf-8")
    # Two reference submissions first: the session records the traces with the second.
    parcels = [Parcel.read(n, COURSE.solutions_dir) for n in ("first", "second")]
    parcels.append(Parcel.read("late", folder))
    only = ["baseline_validity"]
    off = grade_here(COURSE, parcels, only=only, replay=False)["late"].result.functions["baseline_validity"]
    on = grade_here(COURSE, parcels, only=only, replay=True)["late"].result.functions["baseline_validity"]
    assert off.score == 0
    assert on.score == off.score


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


FILL_HEADERS = """
_SHAPES = [0]


def double(x):
    # Empty arrays of shapes no one else sends, new ones each call: every header valid, short and new.
    start = _SHAPES[0]
    _SHAPES[0] += 1400
    return tuple(np.zeros((k, 0)) for k in range(start + 1, start + 1401))
"""


def test_one_submission_does_not_fill_the_header_cache_for_the_rest_of_the_class(tmp_path, cache, monkeypatch):
    """The trusted side keeps the ``.npy`` headers it reads (runtime._HEADERS, added with the replay),
    up to 4,096 of at most 256 bytes, for the life of the process, and never lets one go. A submission
    whose three wrong calls of ``double`` return 1,400 empty arrays each, of shapes no one else sends,
    fills it: every later student of that grading process (a kept pool grades the whole class and
    several assignments) has none of its headers kept, and reads each array's header afresh (about
    twice the cost of a small array, 3.3 us against 6.7 us here). Low severity: a cost, not a grade;
    but what one submission leaves must not decide what the next one gets."""
    monkeypatch.setattr(runtime, "_HEADERS", {})
    course = load_course(make_toy_course(tmp_path / "toy"))
    source = solution_source()
    source = source[: source.index("def double")] + FILL_HEADERS + source[source.index("def add") :]
    (tmp_path / "filler.py").write_text(source, encoding="utf-8")
    (tmp_path / "honest.py").write_text(solution_source(), encoding="utf-8")
    filled = grade_here(course, [Parcel.read("filler", tmp_path / "filler.py")], replay=False)
    assert filled["filler"].result.functions["double"].score == 0  # its tuples fail every test
    grade_here(course, [Parcel.read("honest", tmp_path / "honest.py")], replay=False)
    # The next student's arrays (double's of three floats) have their header kept, as before the filler.
    assert any(b"'shape': (3,)" in header for header in runtime._HEADERS)


# -- costing the class: inconclusive batches that take no time -------------------------------------
SLOW_IMPORT = """
import inspect as _inspect
import os as _os
import time as _time

_time.sleep(2.0)  # under the toy course's 3 s limit for an import


def _end_if_batched():
    # A batch's frame on the stack: end the worker at once, before any time passes.
    if any(f.function == "batch" for f in _inspect.stack()):
        _os._exit(0)
"""


def test_batches_that_end_the_worker_at_once_cost_at_most_the_inconclusive_budget(tmp_path, cache):
    """A batch that says nothing costs its exercise nothing, and a submission at most
    INCONCLUSIVE_SECONDS (2 s) of them. But only the seconds spent waiting for the lost batch's
    reply are counted: a worker that ends the moment a batch reaches its function counts ~0 s, and
    each such batch costs a fresh worker and a fresh import of the submission's modules, counted
    nowhere (``BatchRunner.run`` calls ``Submission.can_batch`` again for what is left). A module
    that takes 2 s to import and functions that exit only inside a batch (correct when a test asks)
    cost the grader an import per exercise: 8.8 s instead of 2.2 s on the toy course, and on a
    course of 30 exercises up to 30 import time limits, uncharged. Replay may cost such a
    submission at most its budget more than grading it without replay."""
    course = load_course(make_toy_course(tmp_path / "toy"))
    (tmp_path / "reference.py").write_text(solution_source(), encoding="utf-8")
    source = solution_source()
    for header in ("def double(x):", "def add(a, b):", "def scale(x, factor):"):
        end = source.index("\n", source.index(header))
        source = source[: end + 1] + "    _end_if_batched()\n" + source[end + 1 :]
    (tmp_path / "exits.py").write_text(SLOW_IMPORT + source, encoding="utf-8")
    # The traces are recorded with the second reference submission, and kept in the cache.
    grade_here(course, [Parcel.read(n, tmp_path / "reference.py") for n in ("first", "second")], replay=True)
    seconds = {}
    for replay in (False, True):
        started = time.monotonic()
        record = grade_here(course, [Parcel.read("exits", tmp_path / "exits.py")], replay=replay)["exits"]
        seconds[replay] = time.monotonic() - started
        assert record.result.functions["double"].score == 2  # correct when a test asks
    assert seconds[True] <= seconds[False] + INCONCLUSIVE_SECONDS + 1.0


# -- costing the class: what the replay holds at once ---------------------------------------------------
HOARD = """

def __getattr__(name):
    if name in _ANSWERS:
        import inspect

        for frame in inspect.stack():
            if frame.function == "batch":  # a replay batch: fill its reply to just under its bounds
                count = len(frame.frame.f_locals["request"]["requests"])
                return [1000 + i % 9000 for i in range(170_000 // count)]
        return "no"
    raise AttributeError(name)
"""


def _held(replies) -> int:
    """Bytes of the Python objects of the list values among ``replies`` (what their decoding built)."""
    total = 0
    for reply in replies:
        value = reply.get("value")
        if isinstance(value, list):
            total += sys.getsizeof(value) + sum(sys.getsizeof(x) for x in value)
    return total


def test_the_replay_holds_no_more_of_a_submissions_replies_than_its_evidence_bound(tmp_path, cache, monkeypatch):
    """A replay keeps every batch's replies (``BatchFindings.prefetched``) until the exercise's tests read
    them: one reply per exercise, each up to the reply bounds (1 MiB, 200,000 values), all held at
    once. Without replay a reply is read, judged and dropped; what is kept of a submission is bounded
    at SUBMISSION_EVIDENCE_BYTES (48 MiB), counted as held. A submission whose 25 concept answers are
    each, in a batch, a list of about 170,000 ints split over the batch's reads (and "no" when a
    test asks) makes the grading process hold 147 MiB of them at once, three times that bound, for a
    score of 0; a course with more exercises holds more."""
    only = [e.function for e in COURSE.exercises if e.kind == "answer"]
    folder = tmp_path / "hoard"
    shutil.copytree(COURSE.solutions_dir, folder)
    checks = folder / "concept_checks.py"
    text = checks.read_text(encoding="utf-8") + "\n" + "".join(f"del {name}\n" for name in only)
    checks.write_text(text + f"\n_ANSWERS = {only!r}\n" + HOARD, encoding="utf-8")
    held = []  # per submission graded with replay
    run = BatchRunner.run

    def measured(self, submission, keys):
        result = run(self, submission, keys)
        held.append(_held(reply for pairs in result.prefetched.values() for _, reply in pairs))
        return result

    monkeypatch.setattr(BatchRunner, "run", measured)
    parcels = [Parcel.read(n, COURSE.solutions_dir) for n in ("first", "second")]
    parcels.append(Parcel.read("hoard", folder))
    records = grade_here(COURSE, parcels, only=only, replay=True)
    assert records["hoard"].result.total == 0
    assert max(held) <= SUBMISSION_EVIDENCE_BYTES


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
