"""What the trusted side keeps of a student's replies is bounded (grader/core/plugin.py)."""

from __future__ import annotations

import numpy as np

from grader.core.course import load_course
from grader.core.diagnosis import Call
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
