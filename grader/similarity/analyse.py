"""Pairs of students with their evidence, per assignment: similar code, and shared rare wrong replies.

**Similar code.** Per function, :func:`grader.similarity.fingerprints.similar_pairs` compares the pairs
that share rare fingerprints. A function is *similar* for a pair when at least :data:`SIMILAR` of
one student's code matches the other's, counted on every fingerprint and on the rare ones alone
(copies made with the disguises of :mod:`grader.similarity.normalise` match entirely). The pair's
code evidence (``evidence``) is the rare fingerprints it shares on its similar functions, each weighed
by how rare it is in the class: log(students / students holding it). ``matched`` says how much code
that is, in characters of canonical, filtered code.

**Flagged** means: the code evidence is at least the assignment's threshold, which is the larger of
:data:`EVIDENCE_FLOOR` and the upper fence (third quartile plus three interquartile ranges) of the
evidence of every pair of this class (of at least :data:`MIN_CLASS` students). What counts as evidence is set by the class too: a fingerprint
that more than 5 % of the class holds is common and proves nothing. Flagged means "a person should
look at these two": never that one copied from the other, nor who from whom; two students who
worked together as allowed, or who started from the same tutorial, are similar too.

**Shared rare wrong replies** come from the grade records (no regrading): the digests
:mod:`grader.core.wrongreplies` keeps of each wrong value a function returned for a hidden input.
A wrong value that at most :func:`rare_replies` students of the class give is listed for every pair
that gives it, with how many students give it and how many answered that input wrongly at all.
They are listed and rank pairs, but never set ``flagged`` alone (their rates are not measured).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np

from grader.engine.record import GradeRecord
from grader.similarity.fingerprints import FunctionCode, Match, boilerplate_of, prepare, similar_pairs
from grader.similarity.normalise import canonical
from grader.similarity.sources import Submission

SIMILAR = 0.9
# The least evidence that flags a pair: rare fingerprints shared on similar functions, each weighed by
# log(students / students holding it) (in a class of 50, about six fingerprints no one else has).
EVIDENCE_FLOOR = 18.0
RARE_REPLY_SHARE = 0.05
MIN_CLASS = 20  # below this many students a class has no distribution to speak of: the floor alone


@dataclass
class Pair:
    assignment: str
    a: str
    b: str
    matches: dict[str, Match] = field(default_factory=dict)  # function -> code compared
    replies: list[dict] = field(default_factory=list)  # shared rare wrong replies
    score: float = 0.0
    matched: int = 0
    evidence: float = 0.0  # the weight of the rare fingerprints shared on similar functions
    flagged: bool = False

    @property
    def similar(self) -> list[str]:
        return [f for f, m in self.matches.items() if is_similar(m)]


def is_similar(match: Match) -> bool:
    return match.similarity >= SIMILAR and match.rare_similarity >= SIMILAR


def rare_replies(n: int) -> int:
    """A wrong value given by at most this many of ``n`` students is rare."""
    return max(2, math.ceil(RARE_REPLY_SHARE * n))


def fence(values: list[float], pairs: int) -> float:
    """Q3 + 3 IQR of ``values`` padded with zeros to ``pairs`` values (the pairs never compared)."""
    if pairs <= 0:
        return 0.0
    full = np.zeros(pairs)
    values = sorted(values)
    if values:
        full[-len(values) :] = values
    q1, q3 = np.percentile(full, [25, 75])
    return float(q3 + 3 * (q3 - q1))


@dataclass
class Assignment:
    """The pairs of one assignment, and what the analysis saw."""

    id: str
    functions: list[str]
    pairs: list[Pair]
    threshold: float
    students: int
    index: dict = field(default_factory=dict)  # per function: what its fingerprint index saw
    codes: dict = field(default_factory=dict)  # (student, function) -> FunctionCode
    records: int = 0  # students with a grade record carrying wrong-reply digests


def analyse(
    assignment: str,
    functions: list[str],
    submissions: dict[str, Submission],
    stubs: dict[str, list[str]],
    records: dict[str, GradeRecord] | None = None,
    progress=None,
) -> Assignment:
    """Every pair of ``submissions`` with evidence, ranked: flagged first, then by the code evidence."""
    codes: dict[tuple[str, str], FunctionCode] = {}  # kept for the pages: the codes some pair compared
    coverage: dict[tuple[str, str], float] = {}  # (student, function) -> fingerprinted length, for the score
    pairs: dict[tuple[str, str], Pair] = {}
    index = {}
    for function in functions:
        boilerplate = boilerplate_of(stubs.get(function, []))
        stub_canon = {c.text for c in (canonical(s) for s in stubs.get(function, [])) if c is not None}
        prepared = []
        for student, sub in submissions.items():
            code = sub.code.get(function)
            if code is None:
                continue
            fc = prepare(student, function, code, boilerplate)
            if fc.canon is not None and fc.canon.text in stub_canon:
                continue  # still the stub: nothing of the student's
            coverage[(student, function)] = float(fc.fingerprint.token_coverage)
            prepared.append(fc)
        matches, seen = similar_pairs(prepared)
        index[function] = seen
        compared = {s for m in matches for s in (m.a, m.b)}
        # Only the codes some pair compared stay (memory grows with the evidence, not with the class).
        codes.update({(fc.student, function): fc for fc in prepared if fc.student in compared})
        del prepared
        for m in matches:
            a, b = sorted((m.a, m.b))
            pair = pairs.setdefault((a, b), Pair(assignment, a, b))
            pair.matches[function] = m
        if progress is not None:
            progress(function)
    graded = _replies(assignment, functions, records or {}, pairs)
    for pair in pairs.values():
        similar = pair.similar
        pair.matched = sum(pair.matches[f].matched for f in similar)
        pair.evidence = round(sum(pair.matches[f].weight for f in similar), 3)
        pair.score = round(_score(pair, similar, coverage, functions), 4)
    n = len(submissions)
    spread = fence([p.evidence for p in pairs.values() if p.evidence], n * (n - 1) // 2) if n >= MIN_CLASS else 0.0
    threshold = max(EVIDENCE_FLOOR, spread)
    for pair in pairs.values():
        pair.flagged = pair.evidence >= threshold
    ranked = sorted(
        (p for p in pairs.values() if p.similar or p.replies),
        key=lambda p: (-p.flagged, -p.evidence, -len(p.replies), -p.score, p.a, p.b),
    )
    return Assignment(assignment, functions, ranked, threshold, n, index, codes, graded)


def _score(pair: Pair, similar: list[str], coverage: dict, functions: list[str]) -> float:
    """The larger of the two students' shares of code (over the assignment's functions, weighed by
    their fingerprinted length) that matches on the similar functions."""
    best = 0.0
    for side, student in enumerate((pair.a, pair.b)):
        total = sum(coverage.get((student, f), 0.0) for f in functions)
        if total <= 0:
            continue
        matched = 0.0
        for f in similar:
            m = pair.matches[f]
            share = m.shares[0] if m.a == student else m.shares[1]
            matched += share * coverage.get((student, f), 0.0)
        best = max(best, matched / total)
    return min(1.0, best)


def _replies(assignment: str, functions: list[str], records: dict[str, GradeRecord], pairs: dict) -> int:
    """Add each pair's shared rare wrong replies; the number of students whose records carry digests."""
    holders: dict[tuple[str, str], list[str]] = {}
    wrong_on: dict[tuple[str, str], set[str]] = {}
    graded = 0
    for student, record in records.items():
        digests = {f: record.wrong_replies.get(f, []) for f in functions}
        graded += 1
        for function, entries in digests.items():
            for entry in entries:
                holders.setdefault((function, entry), []).append(student)
                wrong_on.setdefault((function, entry.partition(":")[0]), set()).add(student)
    limit = rare_replies(len(records))
    for (function, entry), students in holders.items():
        if len(students) < 2 or len(students) > limit:
            continue
        given = entry.partition(":")[0]
        for i, a in enumerate(sorted(students)):
            for b in sorted(students)[i + 1 :]:
                pair = pairs.setdefault((a, b), Pair(assignment, a, b))
                pair.replies.append(
                    {
                        "function": function,
                        "input": given,
                        "students": len(students),  # give this wrong value
                        "wrong": len(wrong_on[(function, given)]),  # answer this input wrongly at all
                    }
                )
    return graded
