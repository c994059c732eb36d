"""grader similarity on a labelled corpus: disguised copies found, independent authors not flagged.

Synthetic classes of 40 students from the blind corpora (independent authors, tests/similarity_corpus.py)
and 12 planted copies each (renamed variables, reformatting, comments, reordered statements, dead code,
all of them; whole assignments and 2 of 5 functions), eight classes per assignment. At the default
threshold: planted pairs flagged >= 95 %, pairs of independent authors flagged <= 1 %, also flagged on
the short function whose correct forms converge (stable_softmax, three lines).
"""

from __future__ import annotations

import itertools

import pytest

from grader.core.course import load_course
from grader.similarity.analyse import analyse
from grader.similarity.sources import Submission, stub_code
from tests.helpers import ROOT
from tests.similarity_corpus import synthetic_class, versions

SEEDS = range(8)


@pytest.fixture(scope="module")
def outcomes():
    course = load_course(ROOT)
    found = {"planted": [], "independent": [], "same author": []}
    short = []  # (flagged on stable_softmax) for each independent pair of the assignment that has it
    for assignment in course.assignments:
        functions = [e.function for e in course.exercises if e.assignment == assignment.id and e.kind == "function"]
        if not functions:
            continue
        pool = versions(functions)
        stubs = {f: stub_code(course, f) for f in functions}
        for seed in SEEDS:
            cls = synthetic_class(functions, 40, 12, seed, pool)
            subs = {sid: Submission(sid, dict(s.code)) for sid, s in cls.students.items()}
            result = analyse(assignment.id, functions, subs, stubs)
            flagged = {(p.a, p.b): p for p in result.pairs if p.flagged}
            for a, b in itertools.combinations(sorted(cls.students), 2):
                label = cls.label(a, b)
                found[label].append((a, b) in flagged)
                if label == "independent" and "stable_softmax" in functions:
                    short.append((a, b) in flagged and "stable_softmax" in flagged[(a, b)].similar)
    return found, short


def test_planted_copies_are_found(outcomes):
    found, _ = outcomes
    rate = sum(found["planted"]) / len(found["planted"])
    assert len(found["planted"]) == 3 * len(SEEDS) * 12
    assert rate >= 0.95, f"planted pairs flagged: {rate:.1%}"


def test_independent_authors_are_not_flagged(outcomes):
    found, _ = outcomes
    rate = sum(found["independent"]) / len(found["independent"])
    assert len(found["independent"]) > 10_000
    assert rate <= 0.01, f"independent pairs flagged: {rate:.2%}"


def test_short_convergent_functions_flag_few_independent_pairs(outcomes):
    _, short = outcomes
    rate = sum(short) / len(short)
    assert rate <= 0.01, f"independent pairs flagged on stable_softmax: {rate:.2%}"
