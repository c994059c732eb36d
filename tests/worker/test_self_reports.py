"""Nothing the worker says about itself decides a grade (issue 22, item 3).

The worker runs in the student's process, so a report about the inputs after a call could be
theirs. The check that inputs stay unchanged hands the function read-only arrays (views of
immutable bytes) and reads an in-place write from the call's outcome: it raises where it happens.
"""

from __future__ import annotations

import numpy as np
import pytest

from grader.worker import runtime
from tests.helpers import ROOT, build_submission, grade_plan

FAKED = ROOT / "tests" / "data" / "faked"


def test_readonly_arrays_cannot_be_made_writeable():
    sent = runtime.encode([np.arange(6.0).reshape(2, 3), {"m": np.asfortranarray(np.eye(2))}, (np.int64(3),)])
    array, inner, _ = runtime.decode(sent, readonly=True)
    for a in (array, inner["m"]):
        assert not a.flags.writeable
        with pytest.raises(ValueError):
            a[0, 0] = 1.0
        with pytest.raises(ValueError):
            a.setflags(write=True)
    assert runtime.decode(sent)[0].flags.writeable  # the default stays a writable array of its own


def test_a_worker_patched_to_report_unchanged_inputs_still_loses_the_point(tmp_path):
    # Before: the patched worker answered with the arguments as sent and earned 5/5 for code that writes
    # into next_values; the catalogue's mutates_inputs (the same code unpatched) earned 4.94.
    plan = {}
    for name, body in (
        ("patched", FAKED / "gae_advantages" / "patches_worker_call.py"),
        ("plain", ROOT / "autograder-tests" / "mistakes" / "gae_advantages" / "mutates_inputs.py"),
    ):
        plan[name] = {"path": str(build_submission(tmp_path / name, [body])), "only": ["gae_advantages"]}
    graded = grade_plan(plan)
    for name in plan:
        result = graded[name]["functions"]["gae_advantages"]
        failed = {t["name"]: t["message"] for t in result["tests"] if not t["passed"]}
        assert list(failed) == ["test_does_not_modify_inputs"], (name, failed)
        assert "modifies its input arrays in place" in failed["test_does_not_modify_inputs"]
        assert result["score"] < result["max"], (name, result["score"])
        assert result["causes"] == ["mutates_inputs"], (name, result["causes"])
