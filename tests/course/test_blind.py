"""The blind corpora (tests/data/blind/, blind2/ ... blind5/), graded: honest first messages on mistakes nobody designed the grader around.

Every entry is a copy of ``solutions/`` with one function replaced by an implementation
written blind, from the exercise docstrings and the module text (blind5: the module text only; see each corpus's
README.md). Graded in one session, each on its own function:

- every wrong entry loses points, every ``correct_*`` entry keeps full marks;
- a first message that names a cause carries its machine-readable ids (the result's
  ``causes``: catalogue names), and every one of them is among the entry's accepted labels
  (each corpus's labels.yaml: the catalogue mistakes that are the same mistake) or among the second
  deviations its code really has (the corpus's also.yaml, if any: checked by a judge, each with its reason);
- a first message without cause ids names none: it is what the grader observed, the
  function's error, or a failed input check (contract tests check what they say directly).
"""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from grader.core.course import load_course
from grader.core.results import messages_of
from tests.helpers import ROOT, build_submission, grade_plan

COURSE = load_course(ROOT, check_tests=False)
# Each corpus was written blind to the probes, the catalogue, the diagnosis code and the corpora before it. Each
# was a held-out measure once; the known mistakes of later rounds were chosen from corpora 1-3, so corpora 4 and 5
# are held out (docs/feedback.md). Here all five check the same rules.
CORPORA = [ROOT / "tests" / "data" / name for name in ("blind", "blind2", "blind3", "blind4", "blind5")]
ENTRIES = sorted(p for corpus in CORPORA for p in corpus.glob("*/*.py"))


def read_yaml(path: Path) -> dict:
    """A corpus's YAML mapping; empty when the file is missing (only blind5 has an also.yaml)."""
    return (yaml.safe_load(path.read_text(encoding="utf-8")) or {}) if path.is_file() else {}


# The cause ids a first message may carry: the entry's labels (the same mistake as its statement) and the second
# deviations its code really has (also.yaml: entry -> {cause id: reason}), kept apart so that labels stay strict.
LABELS = {
    (corpus.name, entry): list(labels) + list(read_yaml(corpus / "also.yaml").get(entry, {}))
    for corpus in CORPORA
    for entry, labels in read_yaml(corpus / "labels.yaml").items()
}
OBSERVED = "what your answers show:"
# Wrong entries the grader does not catch yet, each left for its own fix (a measure, not a target to tune).
# (blind2/ppo_clipped_terms/default_epsilon_0_1 was one until the hidden tests called without clip_epsilon.)
NOT_CAUGHT: dict[str, str] = {}


def entry_id(path: Path) -> str:
    corpus = path.parent.parent.name
    return f"{path.parent.name}/{path.stem}" if corpus == "blind" else f"{corpus}/{path.parent.name}/{path.stem}"


@pytest.fixture(scope="module")
def graded(tmp_path_factory):
    root = tmp_path_factory.mktemp("blind")
    plan = {
        entry_id(p): {"path": str(build_submission(root / entry_id(p), [p])), "only": [p.parent.name]} for p in ENTRIES
    }
    return grade_plan(plan)


@pytest.mark.parametrize("path", ENTRIES, ids=entry_id)
def test_blind_entry(path, graded):
    function, entry = path.parent.name, entry_id(path)
    labels = LABELS.get((path.parent.parent.name, f"{function}/{path.stem}"))
    f = graded[entry]["functions"][function]
    if path.stem.startswith("correct_"):
        assert f["score"] == f["max"], [t for t in f["tests"] if not t["passed"]]
        return
    if entry in NOT_CAUGHT and f["score"] == f["max"]:
        pytest.xfail(NOT_CAUGHT[entry])
    assert f["score"] < f["max"], f"{entry} kept full marks"
    first = (messages_of(f) or [f["error"] or ""])[0]
    causes = f["causes"]
    assert set(causes) <= set(labels or []), (
        f"{entry} is told a cause it does not have ({causes}; accepted: {labels}): {first}"
    )
    if causes:
        assert first == f["diagnosis"]
    else:
        contract = [t["message"] for t in f["tests"] if not t["passed"] and t["kind"] == "contract"]
        assert (f["diagnosis"] and OBSERVED in first) or first == f["error"] or first in contract, (
            f"{entry}: a first message without a cause id must be an observation, the error or an input check: {first}"
        )
