"""Attacks on the replay fast path (grader.core.replay), second review, that succeed on the code as reviewed.

Each test is one hostile submission and the grade it should have had: with replay on, a
submission must earn what it earns with replay off (``--no-replay``).
"""

from __future__ import annotations

import re
import shutil
import sys
import time

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


# -- what one submission leaves for the next ---------------------------------------------------------
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
