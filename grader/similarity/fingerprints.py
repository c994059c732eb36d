"""Fingerprints of a class's functions, an index of them, and the similar pairs it finds.

copydetect does the fingerprinting (MOSS's winnowing over Pygments tokens, names abstracted)
and the comparison of two fingerprinted texts (the matching slices, the share of each text they
cover). It compares every pair; a class of 2,000 has two million pairs per function. Here, per
function, an inverted index maps each fingerprint to the submissions that hold it; a fingerprint
that more than :func:`common_limit` of the class holds is common (an idiom, or a form the
exercise converges on) and is left out, as MOSS leaves out what appears in many submissions; only
pairs that share at least :data:`MIN_SHARED` of the remaining, rare fingerprints are compared.
"""

from __future__ import annotations

import copy
import io
import logging
import math
from dataclasses import dataclass, field
from itertools import combinations

import copydetect.utils
import numpy as np
from copydetect import CodeFingerprint, compare_files
from copydetect.utils import get_token_coverage

from grader.similarity.normalise import Canonical, canonical

# copydetect's defaults (noise threshold 25, guarantee threshold 30): a match shorter than 25
# characters of filtered code is noise, one of 30 or more is always found.
K_GRAM = 25
WINDOW = 6
# A fingerprint held by more than this share of the class (and more than MIN_COMMON students) is common;
# so is one held by more than MAX_COMMON (MOSS ignores what more than 10 programs share): in a large
# class, code that many write alike is no evidence, and each rare fingerprint adds at most
# MAX_COMMON * (MAX_COMMON - 1) / 2 pairs to compare.
COMMON_SHARE = 0.05
MIN_COMMON = 6
MAX_COMMON = 20
# Pairs are compared when they share at least this many rare fingerprints of one function.
MIN_SHARED = 2

logging.getLogger("copydetect").setLevel(logging.ERROR)

# A polynomial hash of each k-gram's code points, modulo 2**64 (numpy's uint64 arithmetic wraps).
_BASE = np.uint64(1_000_003)


def stable_kgram_hashes(text: str, k: int) -> np.ndarray:
    """Hashes of every ``k``-character slice of ``text``, the same in every process.

    copydetect hashes k-grams with Python's ``hash``, which each process salts anew (PYTHONHASHSEED):
    winnowing keeps the smallest hash of each window, so which fingerprints a text keeps, and so the
    evidence and the flags, would change from run to run. This replaces it (installed below).
    """
    if len(text) < k:
        return np.array([], dtype=np.int64)
    points = np.frombuffer(text.encode("utf-32-le"), dtype=np.uint32).astype(np.uint64)
    powers = _BASE ** np.arange(k - 1, -1, -1, dtype=np.uint64)
    windows = np.lib.stride_tricks.sliding_window_view(points, k)
    with np.errstate(over="ignore"):
        return (windows * powers).sum(axis=1, dtype=np.uint64).view(np.int64)


copydetect.utils.hashed_kgrams = stable_kgram_hashes


@dataclass
class FunctionCode:
    """One student's code of one function: as shown (the docstring cut), its canonical text and fingerprints."""

    student: str
    function: str
    code: str
    canon: Canonical | None
    fingerprint: CodeFingerprint | None = field(default=None, repr=False)


def fingerprint(text: str, boilerplate: np.ndarray | None = None) -> CodeFingerprint:
    """copydetect's fingerprint of ``text`` (Python), without the ``boilerplate`` fingerprints."""
    return CodeFingerprint(
        "function.py", K_GRAM, WINDOW, boilerplate=boilerplate, fp=io.StringIO(text), language="python"
    )


def boilerplate_of(stubs: list[str]) -> np.ndarray:
    """The fingerprints of the released stubs' code (the ``def`` line and ``raise NotImplementedError``)."""
    found: set = set()
    for stub in stubs:
        canon = canonical(stub)
        found |= fingerprint(canon.text if canon else stub).hashes
    return np.array(sorted(found), dtype=np.int64)


def prepare(student: str, function: str, code: str, boilerplate: np.ndarray) -> FunctionCode:
    canon = canonical(code)
    return FunctionCode(student, function, code, canon, fingerprint(canon.text if canon else code, boilerplate))


def common_limit(n: int) -> int:
    """A fingerprint held by more than this many of ``n`` submissions is common."""
    return min(MAX_COMMON, max(MIN_COMMON, math.ceil(COMMON_SHARE * n)))


@dataclass
class Match:
    """Two students' codes of one function, compared: on every fingerprint (the stub's left out), and
    on the rare ones only."""

    function: str
    a: str
    b: str
    similarity: float  # the larger of the two shares of code that match (each student's fingerprinted code)
    rare_similarity: float  # the same, counting rare fingerprints only
    shares: tuple[float, float]  # the share of ``a``'s code, and of ``b``'s, that matches
    shared: int  # rare fingerprints in common
    weight: float  # those fingerprints weighed by their rarity: the sum of log(n / holders) over them
    matched: int  # characters of filtered code the matching slices cover (of ``a``)
    slices: tuple  # matching character ranges in each compared text (copydetect's 2 x n arrays)


def _rare(fp: CodeFingerprint, common: set) -> CodeFingerprint:
    """``fp`` without the common fingerprints (a shallow copy: the original keeps them)."""
    kept = copy.copy(fp)
    kept.hashes = fp.hashes - common
    kept.hash_idx = {h: i for h, i in fp.hash_idx.items() if h not in common}
    kept.token_coverage = get_token_coverage(kept.hash_idx, fp.k, len(fp.filtered_code))
    return kept


def similar_pairs(codes: list[FunctionCode]) -> tuple[list[Match], dict]:
    """The pairs of ``codes`` (one function, one per student) that share rare fingerprints, compared.

    Returns the matches and what the index saw: submissions, fingerprints, common ones, the limit.
    """
    if not codes:
        return [], {"submissions": 0}
    function = codes[0].function
    holders: dict = {}
    for i, code in enumerate(codes):
        for h in code.fingerprint.hashes:
            holders.setdefault(h, []).append(i)
    limit = common_limit(len(codes))
    common = {h for h, held in holders.items() if len(held) > limit}
    shared: dict[tuple[int, int], int] = {}
    weights: dict[tuple[int, int], float] = {}
    n = len(codes)
    for h, held in holders.items():
        if h in common or len(held) < 2:
            continue
        weight = math.log(n / len(held))
        for pair in combinations(held, 2):
            shared[pair] = shared.get(pair, 0) + 1
            weights[pair] = weights.get(pair, 0.0) + weight
    rare = {}
    matches = []
    for (i, j), count in shared.items():
        if count < MIN_SHARED:
            continue
        for k in (i, j):
            if k not in rare:
                rare[k] = _rare(codes[k].fingerprint, common)
        _, rare_shares, _ = compare_files(rare[i], rare[j])
        overlap, shares, slices = compare_files(codes[i].fingerprint, codes[j].fingerprint)
        matches.append(
            Match(
                function,
                codes[i].student,
                codes[j].student,
                float(max(shares)),
                float(max(rare_shares)),
                (float(shares[0]), float(shares[1])),
                count,
                round(weights[(i, j)], 3),
                int(overlap),
                slices,
            )
        )
    seen = {"submissions": len(codes), "fingerprints": len(holders), "common": len(common), "limit": limit}
    return matches, seen
