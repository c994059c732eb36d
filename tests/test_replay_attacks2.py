"""Attacks on the replay fast path (grader.core.replay), second review, that succeed on the code as reviewed.

Each test is one hostile submission and the grade it should have had: with replay on, a
submission must earn what it earns with replay off (``GRADER_REPLAY=0``).
"""

from __future__ import annotations

import re
import shutil
import time
from pathlib import Path

import pytest

from grader.core.course import load_course
from grader.core.replay import INCONCLUSIVE_SECONDS
from grader.engine.driver import grade_here
from grader.engine.parcel import Parcel
from grader.worker import runtime
from tests.helpers import ROOT
from tests.toy_course import make_toy_course, solution_source

COURSE = load_course(ROOT)


@pytest.fixture
def cache(tmp_path, monkeypatch):
    monkeypatch.setenv("GRADER_CASES_CACHE", str(tmp_path / "cache"))
    return tmp_path / "cache"


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
    (``Submission.prefetch``): a value that changes on the second read earns every part but the
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
    nowhere (``Replayer.run`` calls ``Submission.replayable`` again for what is left). A module
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
