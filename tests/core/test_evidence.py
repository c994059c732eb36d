"""What the trusted side keeps of a student's replies for the diagnosis is bounded, and counted as it
is held (grader/core/plugin.py, grader/core/diagnosis.py).

Review attack evidence_underestimate: 1 MiB replies of a set of ints held 12.4 MiB for 5.1 MiB
counted, so the 16 MiB budget per function held about 39 MiB (and 20 functions about 0.8 GB).
"""

from __future__ import annotations

import tracemalloc

import numpy as np
import pytest

from grader.core.course import load_course
from grader.core.diagnosis import EVIDENCE_BYTES, SUBMISSION_EVIDENCE_BYTES, Call, value_bytes
from grader.core.plugin import GradingPlugin
from grader.core.results import TestOutcome
from tests.helpers import ROOT


def test_evidence_kept_from_replies_is_bounded_in_bytes(tmp_path):
    # A reply may be up to reply_kb (1 MiB); a failed property test makes a hundred calls, and all
    # of a failed test's calls were kept until the diagnosis: 1 MiB replies grew the grader to 310 MB.
    course = load_course(ROOT, check_tests=False)
    function = course.functions[0]
    plugin = GradingPlugin(course, {"s": tmp_path})
    big = np.zeros(2**17)  # 1 MiB of float64, what one reply may carry
    for test in range(10):
        calls = [Call(args=(big,), kwargs={}, outcome=big.copy()) for _ in range(20)]
        plugin.record("s", function, TestOutcome(f"t{test}", False, 1.0, "wrong"), calls)
    kept = plugin.states["s"].evidence[function].failed
    held = sum(call.args[0].nbytes + call.outcome.nbytes for call in kept)
    assert 0 < held <= 32 * 2**20, f"{held / 2**20:.0f} MiB of evidence held for one function"


VALUES = {
    "a set of ints": lambda: frozenset(range(10**6, 10**6 + 100_000)),
    "a dict of texts to ints": lambda: {str(i): i + 10**6 for i in range(50_000)},
    "a list of floats": lambda: [float(i) for i in range(100_000)],
    "a set of texts": lambda: {str(i) * 3 for i in range(100_000)},
    "lists of arrays": lambda: [[np.arange(3.0), (1, 2.5)] for _ in range(10_000)],
}


@pytest.mark.parametrize("name", VALUES)
def test_a_value_is_counted_at_about_what_it_holds(name):
    tracemalloc.start()
    try:
        value = VALUES[name]()
        held = tracemalloc.get_traced_memory()[0]
    finally:
        tracemalloc.stop()
    assert value_bytes(value) >= 0.85 * held, (value_bytes(value), held)


def test_the_evidence_of_a_submission_is_bounded_whatever_its_number_of_functions(tmp_path):
    course = load_course(ROOT, check_tests=False)
    plugin = GradingPlugin(course, {"s": tmp_path})
    big = Call((), {}, np.zeros(EVIDENCE_BYTES // 8 // 2))  # half a function's budget a call
    for function in course.functions:
        for _ in range(3):
            plugin.record("s", function, TestOutcome("t", False, 1.0, "wrong"), [big])
    held = sum(e.bytes for e in plugin.states["s"].evidence.values())
    assert max(e.bytes for e in plugin.states["s"].evidence.values()) <= EVIDENCE_BYTES
    assert held <= SUBMISSION_EVIDENCE_BYTES, held
