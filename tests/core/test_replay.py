"""Replaying the reference's traces (grader.core.replay): the same records, in a few crossings.

The tests that matter most compare a whole session's records with replay on and off:
on the real course (the reference, the stubs, submissions with known mistakes) and on
the toy course (a looping function, a crash, a function that answers right only in a
batch, prints). The rest check the parts: the comparison of replies, the worker's batch,
the reply parser, the traces on disk.
"""

from __future__ import annotations

import json
import random

import pytest

from grader.core.course import load_course
from grader.core.replay import identical, load_traces, same_reply, trace_file
from grader.engine.driver import grade_here
from grader.engine.parcel import Parcel
from grader.worker import client, runtime
from grader.worker.replies import ReplyRejected, parse_reply
from tests.helpers import ROOT, build_submission, load_mutants, use_cache
from tests.toy_course import make_toy_course, solution_source

COURSE = load_course(ROOT)
UNITS = [e.function for e in COURSE.exercises if e.kind != "lab"]


def comparable(record) -> dict:
    """A record as JSON, without what differs between two runs of the same grading (times, uids)."""
    data = record.to_json()
    for key in ("elapsed", "graded_at", "sandbox"):
        data.pop(key, None)
    data["result"].pop("elapsed", None)
    data["result"].pop("submission", None)
    return data


def grade_both(course, parcels, only=None):
    """The records of ``parcels`` graded in one session with replay off, then in one with it on; and
    the number of each kind of worker request sent with it on."""
    off = grade_here(course, parcels, only=only, replay=False)
    sent: list[dict] = []
    send = client.WorkerProcess.send

    def counting(self, message, timeout):
        sent.append(json.loads(message[runtime.HEADER.size :]) if isinstance(message, bytes) else message)
        return send(self, message, timeout)

    client.WorkerProcess.send = counting
    try:
        on = grade_here(course, parcels, only=only, replay=True)
    finally:
        client.WorkerProcess.send = send
    return off, on, sent


def batched(sent: list[dict]) -> list[dict]:
    """The ``batch`` requests among ``sent`` (each ``batches`` request holds several)."""
    return [b for m in sent if m.get("op") == "batches" for b in m["batches"]]


@pytest.fixture
def cache(tmp_path, monkeypatch):
    return use_cache(monkeypatch, tmp_path / "cache")


# -- whole sessions ----------------------------------------------------------------------------
def test_real_course_records_are_the_same_with_replay(tmp_path, cache):
    """The reference (twice: the second is replayed), the stubs and submissions with known
    mistakes in three functions each: every record equal, replay on or off."""
    rng = random.Random(20)
    mutants = [m for m in load_mutants() if m.function in UNITS]
    parcels = [Parcel.read("reference", COURSE.solutions_dir), Parcel.read("again", COURSE.solutions_dir)]
    parcels.append(Parcel.read("stubs", COURSE.exercises_dir))
    for i in range(6):
        chosen = {m.function: m for m in rng.sample(mutants, 6)}
        path = build_submission(tmp_path / f"wrong{i}", [m.path for m in list(chosen.values())[:3]])
        parcels.append(Parcel.read(f"wrong{i}", path))
    off, on, sent = grade_both(COURSE, parcels, only=UNITS)
    for student in off:
        assert comparable(on[student]) == comparable(off[student]), student
    assert on["again"].result.total == on["again"].result.max
    assert on["stubs"].result.total == 0
    # The traces were recorded with the second submission and used from then on: a request per exercise of
    # a submission (sent again to a new worker when a batch said nothing, at most three rounds).
    messages = [m for m in sent if m.get("op") == "batches"]
    assert batched(sent) and len(messages) <= 3 * 7 * len(UNITS)
    answers = {e.function for e in COURSE.exercises if e.kind == "answer"}
    for message in messages:  # one exercise's inputs each (the concept answers' reads go together)
        named = {r.get("function", r.get("name")) for b in message["batches"] for r in b["requests"]}
        assert len(named) == 1 or named <= answers, named
    assert any(p.name.startswith("gae_advantages-reference-") for p in (cache / "traces").iterdir())


def test_a_correct_submission_is_graded_in_one_crossing_per_exercise(cache):
    """With the traces on disk, a correct submission's tests cross to the worker once per exercise (and
    once per module imported), not once per call (about a thousand on this course); each crossing holds
    one exercise's requests, and the next is sent only once it is answered (test_replay_reach.py)."""
    parcels = [Parcel.read(name, COURSE.solutions_dir) for name in ("first", "second")]
    grade_here(COURSE, parcels, only=UNITS)  # records the traces
    off, on, sent = grade_both(COURSE, [Parcel.read("alone", COURSE.solutions_dir)], only=UNITS)
    assert comparable(on["alone"]) == comparable(off["alone"])
    calls = [m for m in sent if m.get("op") in ("call", "map", "get")]
    messages = [m for m in sent if m.get("op") == "batches"]
    answers = {e.function for e in COURSE.exercises if e.kind == "answer"}
    assert [m["op"] for m in sent if m.get("op") not in ("import",)] == ["batches"] * len(messages)
    # One exercise's inputs in each, but the concept answers' reads by name (no input), which go together.
    assert len(messages) <= len(UNITS) - len(answers) + 2
    for message in messages:
        named = {r.get("function", r.get("name")) for b in message["batches"] for r in b["requests"]}
        assert len(named) == 1 or named <= answers, named
    assert len(batched(sent)) == len(UNITS) and not calls  # no test ran: every exercise agreed
    assert sum(len(b["requests"]) for b in batched(sent)) > 500


TOY_VARIANTS = {
    "correct": solution_source(),
    "looping": solution_source().replace("return 2.0 * np.asarray(x, dtype=float)", "while True:\n        pass"),
    # Right on the first inputs, then wrong: a test that stops at the first wrong answer never sees the rest.
    "late": solution_source().replace(
        "return 2.0 * np.asarray(x, dtype=float)",
        "x = np.asarray(x, dtype=float)\n    return 2.0 * x if len(x) < 4 else 2.0 * x + 1.0",
    ),
    "crash": solution_source().replace(
        "return 2.0 * np.asarray(x, dtype=float)",
        "import os\n    os._exit(3) if len(x) == 5 else None\n    return 2.0 * x",
    ),
    "printing": solution_source().replace(
        "return float(a) + float(b)", "print('adding', a, b)\n    return float(a) + float(b)"
    ),
    # Right only when called within a batch of several requests: it is asked what the tests ask.
    "batch_only": solution_source().replace(
        "return 2.0 * np.asarray(x, dtype=float)",
        "import inspect\n    batched = any(f.function == 'batch' for f in inspect.stack())\n"
        "    return 2.0 * np.asarray(x, dtype=float) + (0.0 if batched else 1.0)",
    ),
    # The stub's own raise, at another line of another file: its failures quote the student's line.
    "stub_elsewhere": "# a line above\n"
    + solution_source().replace(
        "return 2.0 * np.asarray(x, dtype=float)", 'raise NotImplementedError("double is not implemented yet")'
    ),
    "raising": solution_source().replace("return float(a) + float(b)", "raise ValueError('no')"),
}


def test_toy_course_records_are_the_same_with_replay(tmp_path, cache):
    """Loops, crashes, answers that turn wrong later, prints: the same record either way."""
    course = load_course(make_toy_course(tmp_path / "toy", time_limit=1.0))
    parcels = []
    honest = {k: v for k, v in TOY_VARIANTS.items() if k != "batch_only"}  # see the next test
    for name, source in {"first": TOY_VARIANTS["correct"], **honest}.items():
        (tmp_path / f"{name}.py").write_text(source)
        parcels.append(Parcel.read(name, tmp_path / f"{name}.py"))
    off, on, _ = grade_both(course, parcels)
    for student in off:
        assert comparable(on[student]) == comparable(off[student]), student
    assert on["looping"].result.functions["double"].error_kind == "time limit"
    assert on["correct"].result.total == on["correct"].result.max
    assert on["late"].result.total < on["late"].result.max
    assert (
        "(at stub_elsewhere.py, line 10, in double)" in on["stub_elsewhere"].result.functions["double"].tests[0].message
    )


def test_a_submission_answers_each_hidden_input_once(tmp_path, cache):
    """Replay asks what the tests ask, and the tests read what the batch answered: a function that
    tells a batch from a test (by the worker's stack) is graded on its batch's answers, right or
    wrong, never on the better of the two."""
    course = load_course(make_toy_course(tmp_path / "toy", time_limit=1.0))
    alone_only = TOY_VARIANTS["batch_only"].replace("(0.0 if batched else 1.0)", "(1.0 if batched else 0.0)")
    sources = {"first": TOY_VARIANTS["correct"], "batch_only": TOY_VARIANTS["batch_only"], "alone_only": alone_only}
    for name, source in sources.items():
        (tmp_path / f"{name}.py").write_text(source)
    parcels = [Parcel.read(n, tmp_path / f"{n}.py") for n in sources]
    off, on, _ = grade_both(course, parcels)
    double = course.exercise("double").points
    assert off["batch_only"].result.functions["double"].score == 0
    assert on["batch_only"].result.functions["double"].score == double  # its batch answered right
    assert off["alone_only"].result.functions["double"].score == double
    assert on["alone_only"].result.functions["double"].score == 0  # its batch answered wrong
    assert "double does not return twice its input" in on["alone_only"].result.functions["double"].tests[0].message


# -- the parts ---------------------------------------------------------------------------------
def test_identical_tells_types_and_signed_zeros_apart():
    assert identical({"a": [1, 2.5]}, {"a": [1, 2.5]})
    assert not identical(1, 1.0)
    assert not identical(1, True)
    assert not identical(0.0, -0.0)
    assert not identical([1], [1, 2])
    assert not identical({"a": 1}, {"b": 1})
    assert not identical(float("nan"), float("nan"))  # a NaN agrees with nothing: the tests decide


def test_same_reply_reads_an_error_by_its_type_only_for_a_passed_test():
    want = {
        "ok": False,
        "kind": "raised",
        "error_type": "ValueError",
        "builtin_bases": ["ValueError"],
        "message": "bad input",
        "where": ["m.py, line 3, in f"],
    }
    got = dict(want, message="lengths differ", where=["m.py, line 9, in f"])
    assert same_reply(got, want)
    assert not same_reply(dict(got, error_type="TypeError", builtin_bases=["TypeError"]), want)
    assert not same_reply({"ok": True, "value": 1}, want)
    assert same_reply({"ok": True, "value": {"__tuple__": [1, 2.0]}}, {"ok": True, "value": {"__tuple__": [1, 2.0]}})
    assert not same_reply({"ok": True, "value": 2}, {"ok": True, "value": 2.0})


def test_worker_answers_a_batch_in_order(tmp_path):
    (tmp_path / "m.py").write_text("def f(x):\n    if x < 0:\n        raise ValueError('negative')\n    return 2 * x\n")
    worker = runtime.Worker(str(tmp_path))
    call = {"op": "call", "module": "m", "function": "f", "kwargs": runtime.encode({})}
    reply = worker.handle(
        {"op": "batch", "requests": [dict(call, args=[1]), dict(call, args=[-1]), dict(call, args=[3])]}
    )
    assert [r["ok"] for r in reply["replies"]] == [True, False, True]
    assert reply["replies"][0]["value"] == 2 and reply["replies"][2]["value"] == 6
    assert reply["replies"][1]["error_type"] == "ValueError"
    # A test's requests after a NotImplementedError are skipped (a stub's test asks nothing more); the others run.
    (tmp_path / "s.py").write_text("def g(x):\n    raise NotImplementedError('later')\n")
    stub = {"op": "call", "module": "s", "function": "g", "kwargs": runtime.encode({})}
    reply = worker.handle(
        {
            "op": "batch",
            "requests": [dict(stub, args=[1], test=0), dict(call, args=[2], test=0), dict(call, args=[3], test=1)],
        }
    )
    assert [r.get("kind") for r in reply["replies"]] == ["raised", "skipped", None]
    nested = worker.handle({"op": "batch", "requests": [{"op": "batch", "requests": []}]})
    assert nested["ok"] is False and nested["kind"] == "protocol"
    assert worker.handle({"op": "batch", "requests": "no"})["kind"] == "protocol"


def test_parse_reply_bounds_each_reply_of_a_batch():
    data = json.dumps(
        {
            "ok": True,
            "replies": [
                {"ok": True, "value": 1},
                {"ok": False, "kind": "raised", "message": "x" * 5000, "error_type": "E\x1b[2J", "extra": "dropped"},
            ],
        }
    ).encode()
    reply = parse_reply(data)
    first, second = reply["replies"]
    assert first == {"ok": True, "value": 1, "where": [], "builtin_bases": []}
    assert len(second["message"]) <= runtime.MAX_TEXT + 10 and "extra" not in second
    assert "\x1b" not in second["error_type"]
    with pytest.raises(ReplyRejected):
        parse_reply(json.dumps({"ok": True, "replies": {"not": "a list"}}).encode())
    with pytest.raises(ReplyRejected):
        parse_reply(json.dumps({"ok": True, "replies": [1, 2]}).encode())


def test_traces_are_kept_per_function_and_made_again_when_damaged(tmp_path, cache):
    course = load_course(make_toy_course(tmp_path / "toy"))
    (tmp_path / "s.py").write_text(solution_source())
    parcels = [Parcel.read(n, tmp_path / "s.py") for n in ("a", "b")]
    grade_here(course, parcels)
    from grader.core.fingerprint import course_fingerprint

    fingerprint = course_fingerprint(course)
    path = trace_file("double", fingerprint)
    traces = load_traces(path)
    assert [t.outcome.passed for t in traces] == [True, True, True]
    assert load_traces(trace_file("double", fingerprint, "stubs"))  # the stubs' runs, failed
    path.write_text("{not json")
    assert load_traces(path) is None
    grade_here(course, parcels)
    assert load_traces(path) is not None  # recorded again by the session's second submission


def test_no_cache_directory_still_replays_within_a_session(tmp_path, monkeypatch):
    use_cache(monkeypatch, None)
    course = load_course(make_toy_course(tmp_path / "toy"))
    (tmp_path / "s.py").write_text(solution_source())
    parcels = [Parcel.read(n, tmp_path / "s.py") for n in ("a", "b", "c")]
    off, on, sent = grade_both(course, parcels)
    assert {s: comparable(r) for s, r in on.items()} == {s: comparable(r) for s, r in off.items()}
    assert batched(sent)


def test_no_hidden_test_judges_an_error_by_its_text():
    """A passed test's errors agree by type alone (their text is the student's): sound while no hidden
    test reads an error's message to decide. A test that starts to (``pytest.raises(..., match=)``,
    the exception's text) must make replay compare the text too."""
    for path in sorted((ROOT / "autograder-tests" / "hidden").glob("test_*.py")):
        text = path.read_text(encoding="utf-8")
        for reading in ("match=", "excinfo.value", ".args[", "str(error)", "str(exc)"):
            assert reading not in text, f"{path.name} reads an error's text ({reading})"
