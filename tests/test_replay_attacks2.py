"""Attacks on the replay fast path (grader.core.replay), second review, that succeed on the code as reviewed.

Each test is one hostile submission and the grade it should have had: with replay on, a
submission must earn what it earns with replay off (``GRADER_REPLAY=0``).
"""

from __future__ import annotations

import re
import shutil
from pathlib import Path

import pytest

from grader.core.course import load_course
from grader.engine.driver import grade_here
from grader.engine.parcel import Parcel
from tests.helpers import ROOT

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
