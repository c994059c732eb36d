"""grader.testing's property-test helper: the same cases for every submission, cached safely."""

from __future__ import annotations

import json

import numpy as np
from hypothesis import example
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

from grader import testing
from tests.helpers import use_cache


@st.composite
def cases(draw):
    n = draw(st.integers(0, 5))
    return (
        draw(hnp.arrays(np.float64, n)),
        draw(st.booleans()),
        draw(st.sampled_from([0.0, 1.0, 0.5])),
        {"mask": draw(hnp.arrays(np.bool_, (2, n))), "k": draw(st.integers(-3, 3))},
    )


def same(a, b) -> bool:
    if type(a) is not type(b):
        return False
    if isinstance(a, np.ndarray):
        return a.dtype == b.dtype and a.shape == b.shape and np.array_equal(a, b, equal_nan=True)
    if isinstance(a, (tuple, list)):
        return len(a) == len(b) and all(same(x, y) for x, y in zip(a, b))
    if isinstance(a, dict):
        return a.keys() == b.keys() and all(same(a[k], b[k]) for k in a)
    return a == b or (a != a and b != b)


def make_test(seen):
    @testing.given(cases())
    @example(case=(np.zeros(2), True, 1.0, {"mask": np.ones((2, 2), bool), "k": 0}))
    def test_property(impl, case):
        seen.append(case)

    return test_property


def test_cases_are_drawn_once_and_replayed_identically(tmp_path, monkeypatch):
    use_cache(monkeypatch, tmp_path)
    first, second, third = [], [], []
    fresh = make_test(first)
    fresh(impl=None)
    fresh(impl=None)  # a second submission in the same session: the same cases, in order
    session = first[: len(first) // 2]  # one session's worth of cases
    assert len(first) == 2 * len(session) and same(session, first[len(session) :])
    assert len(session) > 1, "the explicit example and drawn ones"
    assert same(session[0], (np.zeros(2), True, 1.0, {"mask": np.ones((2, 2), bool), "k": 0})), "explicit first"
    assert list(tmp_path.rglob("*.json")), "the drawn cases were stored"
    make_test(second)(impl=None)  # a new session: read from the cache
    assert same(second, session), "the cache gives back exactly the session's cases"
    use_cache(monkeypatch, None)
    make_test(third)(impl=None)  # no cache at all: hypothesis draws the very same cases
    assert same(third, second)


def test_the_wrapper_asks_pytest_for_fixtures_only():
    import inspect

    test = make_test([])
    assert list(inspect.signature(test).parameters) == ["impl"]
    assert not hasattr(test, "hypothesis_explicit_examples")


def test_a_damaged_cache_entry_is_drawn_again(tmp_path, monkeypatch):
    use_cache(monkeypatch, tmp_path)
    seen = []
    make_test(seen)(impl=None)
    cached = list(tmp_path.rglob("*.json"))
    assert cached, "the drawn cases were stored"
    for path in cached:
        path.write_text("{not json")
    again = []
    make_test(again)(impl=None)
    assert same(again, seen)
    assert sorted(tmp_path.rglob("*.json")) == sorted(cached)
    for path in cached:
        json.loads(path.read_text())  # rewritten whole
