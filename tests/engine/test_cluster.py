"""Grading on a real Dask cluster: a `dask scheduler` and `dask worker` processes on 127.0.0.1.

Each worker runs in a scratch directory of its own (its working and local directory),
so nothing is shared with the client but the scheduler's address: the course and the
submissions travel over the network, the records come back.
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from grader.core.course import load_course
from grader.core.fingerprint import run_fingerprint
from tests.helpers import ROOT, default_sigint
from tests.sandbox.common import needs_bwrap
from tests.toy_course import looping_source, make_toy_course, solution_source, wrong_source

pytest.importorskip("distributed", reason="the cluster extra (distributed) is not installed")
from tests.engine.dask_cluster import Cluster, free_port  # noqa: E402

HOSTILE = ROOT / "tests" / "data" / "hostile"


@pytest.fixture(scope="module")
def cluster(tmp_path_factory):
    found = Cluster(tmp_path_factory.mktemp("dask"))
    try:
        found.workers = [found.add_worker("worker-a"), found.add_worker("worker-b")]
        yield found
    finally:
        found.close()


def grade_class(course: Path, submissions: Path, out: Path, *extra: str, timeout: float = 300):
    # The test clusters listen on plain tcp://127.0.0.1 (each test's own): refused unless said insecure.
    return subprocess.run(
        [
            sys.executable,
            "-m",
            "grader",
            "grade-class",
            str(submissions),
            "--out",
            str(out),
            "--course",
            str(course),
            *extra,
        ],
        capture_output=True,
        text=True,
        timeout=timeout,
        cwd=out.parent,
        env=dict(os.environ, GRADER_CLUSTER_INSECURE="1"),
    )


def records(out: Path) -> dict[str, dict]:
    return {p.stem: json.loads(p.read_text()) for p in sorted((out / "results").glob("*.json"))}


def hostile(name: str, base: Path) -> str:
    return (
        (HOSTILE / f"{name}.py")
        .read_text()
        .replace("@@CANARY@@", str(base / "canary"))
        .replace("@@COURSE_ROOT@@", str(base / "course"))
        .replace("@@REPO_ROOT@@", str(ROOT))
        .replace("@@PORT@@", str(free_port()))
    )


@needs_bwrap
def test_grades_on_the_cluster_equal_local_grades_byte_for_byte(cluster, tmp_path):
    course = make_toy_course(tmp_path / "course")
    submissions = tmp_path / "class"
    submissions.mkdir()
    (submissions / "correct.py").write_text(solution_source())
    (submissions / "wrong.py").write_text(wrong_source())
    stub = submissions / "stub"
    shutil.copytree(course / "exercises", stub)
    (submissions / "loops.py").write_text(looping_source())
    for name in ("forks_children", "network", "writes_outside", "exits_at_import", "fork_bomb"):
        (submissions / f"hostile_{name}.py").write_text(hostile(name, tmp_path))
    local = grade_class(course, submissions, tmp_path / "local", "-j", "1")
    assert local.returncode == 0, local.stderr
    remote = grade_class(course, submissions, tmp_path / "remote", "--scheduler", cluster.address)
    assert remote.returncode == 0, remote.stderr
    here, there = records(tmp_path / "local"), records(tmp_path / "remote")
    assert sorted(there) == sorted(here) and len(here) == 9
    for student in here:
        for key in ("result", "assignments", "limits", "submission", "submission_hash", "course_hash"):
            assert json.dumps(there[student][key]) == json.dumps(here[student][key]), (student, key)
    assert {r["grader"] for r in there.values()} == set(cluster.workers), "both workers grade"
    assert all(r["sandbox"].startswith("bubblewrap sandbox") for r in there.values())
    assert here["correct"]["result"]["total"] == 4 and here["stub"]["result"]["total"] == 0
    assert here["loops"]["limits"][0]["kind"] == "time limit"


def slow_class(directory: Path, loops: int, quick: int) -> Path:
    """Submissions whose endless loop costs one time limit each, and quick correct ones."""
    directory.mkdir()
    for i in range(loops):
        (directory / f"loop{i:02d}.py").write_text(looping_source())
    for i in range(quick):
        (directory / f"fine{i:02d}.py").write_text(solution_source())
    return directory


def test_a_killed_worker_loses_no_grade_and_its_submissions_are_graded_elsewhere(cluster, tmp_path):
    course = make_toy_course(tmp_path / "course")
    submissions = slow_class(tmp_path / "class", loops=6, quick=4)
    doomed = cluster.add_worker("worker-doomed")
    out = tmp_path / "out"
    client = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "grader",
            "grade-class",
            str(submissions),
            "--out",
            str(out),
            "--course",
            str(course),
            "--scheduler",
            cluster.address,
            "--insecure",
        ],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        cwd=tmp_path,
    )
    in_flight: list = []
    deadline = time.monotonic() + 120
    while not in_flight and time.monotonic() < deadline:
        in_flight = list(cluster.client.processing(workers=[doomed]).get(doomed, []))
        time.sleep(0.05)
    assert in_flight, "the third worker never got a submission"
    cluster.kill("worker-doomed")
    _, stderr = client.communicate(timeout=240)
    assert client.returncode == 0, stderr
    lost = {key.split("-")[1] for key in in_flight}
    got = records(out)
    assert sorted(got) == sorted(p.stem for p in submissions.iterdir()), "every student graded, once"
    for student in lost:
        assert f"lost {student}" in stderr and "grading it again elsewhere" in stderr, stderr
        assert got[student]["grader"] != doomed and got[student]["grader"] in cluster.workers
    assert all(r["result"]["total"] == (2 if s.startswith("loop") else 4) for s, r in got.items())
    manifest = json.loads((out / "class.json").read_text())
    assert manifest["graded_this_run"] == 10 and not manifest["failed"]


def test_a_stopped_client_resumes_with_only_the_missing_students(cluster, tmp_path):
    course = make_toy_course(tmp_path / "course")
    submissions = slow_class(tmp_path / "class", loops=6, quick=2)
    out = tmp_path / "out"
    client = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "grader",
            "grade-class",
            str(submissions),
            "--out",
            str(out),
            "--course",
            str(course),
            "--scheduler",
            cluster.address,
            "--insecure",
        ],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        cwd=tmp_path,
        preexec_fn=default_sigint,
    )
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline and len(list((out / "results").glob("*.json"))) < 2:
        time.sleep(0.1)
    client.send_signal(signal.SIGINT)
    _, stderr = client.communicate(timeout=60)
    assert client.returncode == 130, stderr
    saved = {p.name: p.read_bytes() for p in (out / "results").glob("*.json")}
    assert 2 <= len(saved) < 8
    again = grade_class(course, submissions, out, "--scheduler", cluster.address)
    assert again.returncode == 0, again.stderr
    assert f"{len(saved)} already graded and unchanged, {8 - len(saved)} to grade" in again.stderr
    assert all((out / "results" / name).read_bytes() == data for name, data in saved.items())
    assert len(records(out)) == 8


def test_a_worker_with_another_course_version_is_refused_naming_both_fingerprints(cluster, tmp_path):
    course = make_toy_course(tmp_path / "course")
    submissions = tmp_path / "class"
    submissions.mkdir()
    (submissions / "alice.py").write_text(solution_source())
    (submissions / "bob.py").write_text(wrong_source())
    # A worker with another version of the grader's grading code (here: one changed line).
    other = tmp_path / "other-grader"
    shutil.copytree(ROOT / "grader", other / "grader", ignore=shutil.ignore_patterns("__pycache__"))
    with open(other / "grader" / "core" / "plugin.py", "a") as out:
        out.write("\n# another version\n")
    odd = cluster.add_worker("worker-other-version", env={"PYTHONPATH": str(other)})
    try:
        proc = grade_class(course, submissions, tmp_path / "out", "--scheduler", cluster.address)
    finally:
        cluster.kill("worker-other-version")
    assert proc.returncode == 0, proc.stderr
    ours = run_fingerprint(load_course(course))[:16]
    refusal = next(line for line in proc.stderr.splitlines() if line.startswith(f"refused {odd}"))
    assert f"the client with {ours}" in refusal
    theirs = refusal.split("grades with course fingerprint ", 1)[1][:16]
    assert len(theirs) == 16 and theirs != ours
    assert {r["grader"] for r in records(tmp_path / "out").values()} <= set(cluster.workers)


@pytest.mark.parametrize(
    "address",
    [
        "tcp://10.1.2.3:8786",
        "10.1.2.3:8786",
        "tcp://scheduler.example.org:8786",
        "tcp://0.0.0.0:8786",
        "ws://192.168.1.5:8786",
        "tcp://127.0.0.1:8786",
        "tcp://localhost:8786",
        "tcp://[::1]:8786",
        "127.0.0.1:8786",
    ],
)
def test_plain_tcp_is_refused_before_connecting(address, monkeypatch):
    # A rogue machine that reaches a plain tcp:// scheduler joins as a worker and gets every
    # submission; the docs' recipe listened on 0.0.0.0 without TLS. Loopback too (review attacks
    # rogue_loopback_worker, rogue_loopback_client): another user of the machine joined a
    # tcp://127.0.0.1 scheduler, recorded 4/4 (and 103) for a student, stopped the run, read the solutions.
    from grader.engine.cluster import check_address
    from grader.errors import GraderError

    monkeypatch.setenv("GRADER_CLUSTER_INSECURE", "1")  # read at the command line only, never here
    with pytest.raises(GraderError, match="tls://"):
        check_address(address)
    assert check_address(address, insecure=True) == address
    for fine in ("tls://10.1.2.3:8786", "tls://127.0.0.1:8786", "gateway://traefik.example.org:80/abc"):
        assert check_address(fine) == fine


@needs_bwrap
def test_only_members_with_the_courses_credentials_join_and_get_anything(tmp_path, monkeypatch):
    # Anyone who reached the scheduler could join as a worker, receive every submission and
    # return chosen grades. With mutual TLS a worker without the course's credentials, or with
    # another course's, never joins; the class is graded by the members alone.
    from grader.engine.credentials import make_credentials

    course = make_toy_course(tmp_path / "course")
    ours = make_credentials(tmp_path / "ours", "toy")
    theirs = make_credentials(tmp_path / "theirs", "toy")  # another authority: another course's cluster
    found = Cluster(tmp_path / "dask", credentials=ours)
    try:
        member = found.add_worker("member")
        for name, credentials in (("stranger", None), ("other-course", theirs)):
            with pytest.raises(AssertionError, match="did not join"):
                found.add_worker(name, credentials=credentials, wait=8)
        assert set(found.client.nthreads()) == {member}
        submissions = tmp_path / "class"
        submissions.mkdir()
        (submissions / "alice.py").write_text(solution_source())
        out = tmp_path / "results"
        proc = subprocess.run(
            [
                sys.executable,
                "-m",
                "grader",
                "grade-class",
                str(submissions),
                "--out",
                str(out),
                "--course",
                str(course),
                "--scheduler",
                found.address,
            ],
            capture_output=True,
            text=True,
            timeout=300,
            cwd=tmp_path,
            env=dict(__import__("os").environ, GRADER_CLUSTER_CREDENTIALS=str(ours)),
        )
        assert proc.returncode == 0, proc.stderr
        assert records(out)["alice"]["result"]["total"] == 4
        assert records(out)["alice"]["grader"] == member
        for name in ("stranger", "other-course"):
            log = (tmp_path / "dask" / name / "log").read_text()
            assert "grade-" not in log and "alice" not in log
        # The grader's client deserializes msgpack only: what a member sends back that needs
        # pickle (which would run code in the instructor's process) is refused, not loaded.
        from grader.engine.cluster import DaskCluster
        from grader.engine.options import GradingOptions

        options = GradingOptions(credentials=ours)
        client = DaskCluster(found.address, load_course(course), options=options, course_hash="x", only=None).connect()
        try:
            assert client.submit(lambda: {"score": 1.0}, pure=False).result(timeout=60) == {"score": 1.0}
            with pytest.raises(Exception):
                client.submit(lambda: __import__("fractions").Fraction(1, 3), pure=False).result(timeout=60)
        finally:
            client.close()
    finally:
        found.close()


def test_a_members_fatal_answer_costs_that_member_not_the_run():
    # Review attack rogue_loopback_worker (ROGUE_FATAL): a member answered "fatal" for bob and the whole
    # class run stopped ("grader: error: rogue says stop") after one student. A member's word on whether
    # grading can go on is about itself: its student is retried elsewhere, as when a worker is lost.
    from grader.engine.cluster import member_outcome
    from grader.engine.driver import Outcome

    said = member_outcome(Outcome(failure="rogue says stop", infrastructure=True, fatal=True), "tcp://10.0.0.9:1")
    assert not said.fatal and said.infrastructure and said.record is None
    assert "tcp://10.0.0.9:1 cannot grade: rogue says stop" == said.failure
    fine = Outcome(failure="a failure of the student's own", infrastructure=False)
    assert member_outcome(fine, "w") is fine


def test_a_members_record_is_one_the_course_allows():
    # The same rogue member recorded a1 = 103 and a2 = 101 for a student who handed in nothing: the client
    # takes no total from a member, and refuses a score outside 0..points (the student is graded elsewhere).
    import dataclasses

    from grader.core.course import load_course
    from grader.engine.cluster import member_outcome
    from grader.engine.driver import Outcome
    from tests.engine.test_record import a_record

    course = load_course(ROOT, check_files=False)
    record = a_record()
    forged = dataclasses.replace(record, assignments={"ps4b": {"score": 103.0, "max": 5.0, "functions": []}})
    kept = member_outcome(Outcome(forged), "w", course).record
    assert kept.assignments == a_record().assignments and kept.assignments["ps4b"]["score"] <= 5.0
    record.result.functions["gae_advantages"].score = 103.0
    refused = member_outcome(Outcome(record), "w", course)
    assert refused.record is None and refused.infrastructure and "does not allow (gae_advantages)" in refused.failure
