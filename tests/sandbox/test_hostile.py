"""Hostile and broken submissions: each ends within its bound, costs only what it attacks,
and changes nothing outside the sandbox.

All of tests/data/hostile/ is graded in one session with the toy course, between two
correct submissions: the one graded after every hostile submission must still get
full marks. Then each hostile submission is checked on its own.
"""

from __future__ import annotations

import hashlib
import json
import re
import socket
import threading
import time
from pathlib import Path

import pytest

from grader.core.course import load_course
from grader.engine.driver import grade_here
from grader.engine.parcel import Parcel
from grader.sandbox import SandboxLauncher
from grader.sandbox.limits import Limits
from tests.helpers import ROOT
from tests.sandbox.common import leftover_processes, needs_bwrap
from tests.toy_course import make_toy_course, solution_source

HOSTILE = ROOT / "tests" / "data" / "hostile"
FILES = sorted(HOSTILE.glob("*.py"))

pytestmark = needs_bwrap


def metadata(path: Path) -> dict:
    doc = re.match(r'\s*"""(.*?)"""', path.read_text(encoding="utf-8"), re.S).group(1)
    meta = dict(re.findall(r"^(target|bound|expect):\s*(.+)$", doc, re.M))
    assert {"target", "bound", "expect"} <= set(meta), f"{path.name}: docstring needs target, bound, expect"
    return {"target": meta["target"].strip(), "bound": float(meta["bound"]), "expect": meta["expect"].strip()}


def tree_digest(root: Path) -> dict[str, str]:
    return {
        str(p.relative_to(root)): hashlib.sha256(p.read_bytes()).hexdigest()
        for p in sorted(root.rglob("*"))
        if p.is_file() and "__pycache__" not in p.parts
    }


class Listener:
    """A TCP listener on the grader's loopback that records every connection."""

    def __init__(self):
        self.sock = socket.socket()
        self.sock.bind(("127.0.0.1", 0))
        self.sock.listen(8)
        self.sock.settimeout(0.2)
        self.port = self.sock.getsockname()[1]
        self.connections = 0
        self.stopped = False
        self.thread = threading.Thread(target=self.run, daemon=True)
        self.thread.start()

    def run(self):
        while not self.stopped:
            try:
                conn, _ = self.sock.accept()
            except OSError:
                continue
            self.connections += 1
            conn.close()

    def stop(self):
        self.stopped = True
        self.thread.join(5)
        self.sock.close()


@pytest.fixture(scope="module")
def graded(tmp_path_factory):
    base = tmp_path_factory.mktemp("hostile")
    course_root = make_toy_course(base / "course")
    course = load_course(course_root)
    canary = base / "canary"
    canary.mkdir()
    (canary / "keep.txt").write_text("do not touch\n")
    listener = Listener()
    submissions = base / "submissions"
    submissions.mkdir()
    (submissions / "control_first.py").write_text(solution_source())
    for path in FILES:
        text = (
            path.read_text(encoding="utf-8")
            .replace("@@CANARY@@", str(canary))
            .replace("@@COURSE_ROOT@@", str(course_root))
            .replace("@@REPO_ROOT@@", str(ROOT))
            .replace("@@PORT@@", str(listener.port))
        )
        (submissions / path.name).write_text(text)
    (submissions / "control_last.py").write_text(solution_source())
    ids = {
        "control_first": submissions / "control_first.py",
        **{p.stem: submissions / p.name for p in FILES},
        "control_last": submissions / "control_last.py",
    }
    before = {"course": tree_digest(course_root), "canary": tree_digest(canary)}
    finished: dict[str, float] = {}
    limits = Limits.from_course(course)
    launcher = SandboxLauncher(limits, sandbox="require")
    try:
        started = time.monotonic()
        records = grade_here(
            course,
            [Parcel.read(sid, path) for sid, path in ids.items()],
            launcher=launcher,
            on_record=lambda parcel, record: finished.__setitem__(parcel.student, time.monotonic()),
        )
        total = time.monotonic() - started
        results = {sid: record.result for sid, record in records.items()}
        during = leftover_processes(launcher)
    finally:
        launcher.close()
        listener.stop()
    time.sleep(0.2)
    return {
        "course": course,
        "results": results,
        "total": total,
        "records": records,
        "limits": limits,
        "before": before,
        "after": {"course": tree_digest(course_root), "canary": tree_digest(canary)},
        "leftovers_after_close": leftover_processes(launcher),
        "leftovers_during": during,
        "connections": listener.connections,
        "launcher": launcher,
    }


def test_correct_submissions_around_the_hostile_ones_get_full_marks(graded):
    for sid in ("control_first", "control_last"):
        result = graded["results"][sid]
        assert result.total == result.max, {n: (f.score, f.error, f.messages) for n, f in result.functions.items()}


def test_one_zygote_served_every_worker(graded):
    launcher = graded["launcher"]
    # Hostile submissions may force a replacement (a cleanup that found leftovers),
    # but nowhere near one zygote per worker.
    assert launcher.spawned > len(FILES)
    assert launcher.zygotes_started <= 1 + len(FILES) // 3, (launcher.zygotes_started, launcher.spawned)


def test_nothing_outside_changed(graded):
    assert graded["after"] == graded["before"]
    for path in (ROOT / "planted.txt", Path("/tmp/grader-hostile-planted.txt"), Path.home() / "planted.txt"):
        assert not path.exists(), f"a hostile submission wrote {path}"
    assert graded["connections"] == 0, "a submission reached a listener on the grader's 127.0.0.1"


def test_no_process_outlives_grading(graded):
    assert graded["leftovers_during"] == [], "processes survived their submission"
    assert graded["leftovers_after_close"] == []


@pytest.mark.parametrize("path", FILES, ids=[p.stem for p in FILES])
def test_hostile_submission(graded, path):
    meta = metadata(path)
    result = graded["results"][path.stem]
    assert result.elapsed <= meta["bound"], f"{path.stem} took {result.elapsed:.1f} s (bound {meta['bound']:g} s)"
    targets = list(result.functions) if meta["target"] == "all" else [meta["target"]]
    for name, f in result.functions.items():
        if name in targets:
            assert f.score == 0, f"{path.stem}: {name} earned {f.score} with {f.messages}"
        else:
            assert f.score == f.max, f"{path.stem}: {name} lost points ({f.error}; {f.messages})"
    said = " | ".join(f"{result.functions[t].error or ''} {' '.join(result.functions[t].messages)}" for t in targets)
    assert meta["expect"].lower() in said.lower(), f"{path.stem}: expected '{meta['expect']}' in: {said}"


def test_output_flood_is_capped(graded):
    cap = int(graded["limits"].file_size_mb * 2**20)
    record = graded["records"]["output_flood"]
    assert record.workers and max(w["output_bytes"] for w in record.workers) <= cap
    assert 0 < len(record.output.encode()) <= graded["limits"].output_bytes


def test_time_limited_functions_stop_at_their_limit(graded):
    limit = graded["course"].exercise("double").time_limit
    for stem in ("infinite_loop", "sleeps", "ignores_sigterm"):
        f = graded["results"][stem].functions["double"]
        assert f.error and "time limit" in f.error
        # The limit plus a worker restart, not the bound of the docstring.
        assert graded["results"][stem].elapsed < limit + 10


def test_raw_replies_cost_their_own_function_only(graded):
    functions = graded["results"]["raw_replies"].functions
    assert "a reply of 4.0 MiB" in " ".join(functions["double"].messages)
    assert "a reply of 8.0 MiB" in " ".join(functions["add"].messages)
    assert functions["double"].error_kind == functions["add"].error_kind == "reply limit"
    assert "nested more than 32 levels" in " ".join(functions["scale"].messages)


def test_student_text_is_bounded_in_every_result(graded):
    for stem, result in graded["results"].items():
        record = json.dumps(result.to_json())
        assert len(record) < 100_000, f"{stem}: a result of {len(record)} characters"
        for f in result.functions.values():
            for text in [f.error or "", *f.messages]:
                # A test's own words and the student's error: a 60-character type, a 300-character message and
                # one line of 120 (issue 30); 2,000 characters of message before.
                assert len(text) < 1000, f"{stem}: a message of {len(text)} characters"
                assert not re.search(r"[\x00-\x08\x0b-\x1f\x7f-\x9f]", text), (
                    f"{stem}: control characters in {text[:80]!r}"
                )


def test_a_memory_limit_is_what_the_kernel_saw_never_what_the_student_said(graded):
    def events(stem):
        return [e for e in graded["records"][stem].limits if e["kind"] == "memory limit"]

    hog = events("memory_hog")
    assert [e["function"] for e in hog] == ["double"], hog
    assert "MiB of the 512 MiB" in hog[0]["detail"]
    assert events("fake_memory_error") == []
    assert events("control_last") == []
