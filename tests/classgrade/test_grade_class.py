"""grader grade-class: parallel, resumable, the same grades whatever N."""

from __future__ import annotations

import csv
import json
import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from grader.classgrade.run import discover_submissions
from grader.errors import GraderError
from tests.helpers import default_sigint
from tests.toy_course import looping_source, make_toy_course, solution_source, wrong_source

LOOPING = looping_source()


def grader(*args: str, cwd: Path, timeout: float = 300) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "grader", *args], cwd=cwd, capture_output=True, text=True, timeout=timeout
    )


@pytest.fixture()
def toy_class(tmp_path):
    course = make_toy_course(tmp_path / "course")
    submissions = tmp_path / "class"
    submissions.mkdir()
    (submissions / "alice.py").write_text(solution_source())
    (submissions / "bob.py").write_text(wrong_source())
    carol = submissions / "carol"
    carol.mkdir()
    for module in ("toy", "other"):
        (carol / f"{module}.py").write_text((course / "exercises" / f"{module}.py").read_text())
    dave = submissions / "dave"
    dave.mkdir()
    for module in ("toy", "other"):
        (dave / f"{module}.py").write_text((course / "solutions" / f"{module}.py").read_text())
    (submissions / "erin.py").write_text(LOOPING)
    (submissions / ".hidden").mkdir()
    (submissions / "notes.txt").write_text("not a submission")
    return course, submissions


def run_class(course: Path, submissions: Path, out: Path, *extra: str) -> subprocess.CompletedProcess:
    proc = grader(
        "grade-class", str(submissions), "--out", str(out), "--course", str(course), *extra, cwd=course.parent
    )
    return proc


def grades(out: Path) -> dict[str, dict]:
    """Per student: total and per-function score and messages (no timing)."""
    found = {}
    for path in sorted((out / "results").glob("*.json")):
        record = json.loads(path.read_text())
        result = record["result"]
        found[record["student"]] = {
            "total": result["total"],
            "functions": {
                name: (f["score"], f["error"], [t["message"] for t in f["tests"]])
                for name, f in result["functions"].items()
            },
        }
    return found


def test_a_class_is_graded_in_parallel_with_one_file_per_student(toy_class, tmp_path):
    course, submissions = toy_class
    out = tmp_path / "results"
    proc = run_class(course, submissions, out, "-j", "2")
    assert proc.returncode == 0, proc.stderr
    assert "5 to grade" in proc.stderr
    got = grades(out)
    assert sorted(got) == ["alice", "bob", "carol", "dave", "erin"]
    assert got["alice"]["total"] == 4 and got["dave"]["total"] == 4
    assert got["bob"]["functions"]["double"][0] == 0 and got["bob"]["total"] == 2
    assert got["carol"]["total"] == 0
    assert got["erin"]["functions"]["double"][1].startswith("time limit")
    assert got["erin"]["total"] == 2  # the loop costs double only
    record = json.loads((out / "results" / "erin.json").read_text())
    assert record["limits"] and record["limits"][0]["kind"] == "time limit"
    with open(out / "summary.csv", newline="") as f:
        rows = {row["student"]: row for row in csv.DictReader(f)}
    assert rows["alice"]["total"] == "4" and rows["alice"]["a1"] == "3" and rows["alice"]["a2"] == "1"
    assert rows["erin"]["limits"] == "double: time limit"
    manifest = json.loads((out / "class.json").read_text())
    assert manifest["students"] == ["alice", "bob", "carol", "dave", "erin"] and manifest["finished_at"]
    assert not [p for p in out.rglob(".*tmp*")], "temporary files left behind"


def test_a_rerun_grades_only_what_changed(toy_class, tmp_path):
    course, submissions = toy_class
    (submissions / "erin.py").unlink()  # keep it quick
    out = tmp_path / "results"
    assert run_class(course, submissions, out, "-j", "2").returncode == 0
    before = {p.name: p.read_bytes() for p in (out / "results").glob("*.json")}

    again = run_class(course, submissions, out, "-j", "2")
    assert again.returncode == 0, again.stderr
    assert "4 already graded and unchanged, 0 to grade" in again.stderr
    assert {p.name: p.read_bytes() for p in (out / "results").glob("*.json")} == before

    (submissions / "bob.py").write_text(solution_source())  # bob resubmits, fixed
    third = run_class(course, submissions, out, "-j", "2")
    assert "3 already graded and unchanged, 1 to grade" in third.stderr
    assert grades(out)["bob"]["total"] == 4
    for name in ("alice.json", "carol.json", "dave.json"):
        assert (out / "results" / name).read_bytes() == before[name]

    # A change to the course (here a hidden test) invalidates every grade.
    test_file = course / "autograder-tests" / "hidden" / "test_add.py"
    test_file.write_text(test_file.read_text() + "\n# reviewed\n")
    fourth = run_class(course, submissions, out, "-j", "2")
    assert "0 already graded and unchanged, 4 to grade" in fourth.stderr


def test_student_regrades_those_students_only_and_keeps_the_class(toy_class, tmp_path):
    """`--student ID` (repeatable): those are graded again, changed or not; nobody else is, not even a
    student whose submission changed; summary.csv and the class list keep everyone."""
    course, submissions = toy_class
    (submissions / "erin.py").unlink()  # keep it quick
    out = tmp_path / "results"
    assert run_class(course, submissions, out, "-j", "2").returncode == 0
    before = {p.name: p.read_bytes() for p in (out / "results").glob("*.json")}
    (submissions / "bob.py").write_text(solution_source())  # bob resubmits, fixed
    (submissions / "dave" / "toy.py").write_text(wrong_source())  # dave changes too, but is not asked for
    proc = run_class(course, submissions, out, "--student", "bob", "--student", "alice")
    assert proc.returncode == 0, proc.stderr
    assert "2 submissions in" in proc.stderr and "0 already graded and unchanged, 2 to grade" in proc.stderr
    assert grades(out)["bob"]["total"] == 4
    assert (out / "results" / "alice.json").read_bytes() != before["alice.json"]  # graded again
    for name in ("carol.json", "dave.json"):
        assert (out / "results" / name).read_bytes() == before[name]
    with open(out / "summary.csv", newline="") as f:
        assert {row["student"]: row["total"] for row in csv.DictReader(f)} == {
            "alice": "4",
            "bob": "4",
            "carol": "0",
            "dave": "4",
        }
    assert json.loads((out / "class.json").read_text())["students"] == ["alice", "bob", "carol", "dave"]
    unknown = run_class(course, submissions, out, "--student", "zed")
    assert unknown.returncode == 2 and "no gradable submission" in unknown.stderr and "zed" in unknown.stderr


def test_grades_do_not_depend_on_the_number_of_processes(toy_class, tmp_path):
    course, submissions = toy_class
    one = run_class(course, submissions, tmp_path / "one", "-j", "1")
    three = run_class(course, submissions, tmp_path / "three", "-j", "3")
    assert one.returncode == 0 and three.returncode == 0, one.stderr + three.stderr
    assert grades(tmp_path / "one") == grades(tmp_path / "three")
    forced = run_class(course, submissions, tmp_path / "one", "-j", "2", "--force")
    assert "5 to grade" in forced.stderr
    assert grades(tmp_path / "one") == grades(tmp_path / "three")


def test_an_interrupted_run_resumes_where_it_stopped(toy_class, tmp_path):
    course, submissions = toy_class
    for i in range(2):  # slow students after the quick ones: time to interrupt
        (submissions / f"zz{i}.py").write_text(LOOPING)
    out = tmp_path / "results"
    proc = subprocess.Popen(
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
            "-j",
            "1",
        ],
        cwd=tmp_path,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        preexec_fn=default_sigint,
    )
    deadline = time.monotonic() + 240
    while time.monotonic() < deadline and len(list((out / "results").glob("*.json"))) < 2:
        time.sleep(0.2)
    proc.send_signal(signal.SIGINT)
    _, stderr = proc.communicate(timeout=60)
    assert proc.returncode == 130, stderr
    assert "interrupted" in stderr
    saved = {p.name: p.read_bytes() for p in (out / "results").glob("*.json")}
    assert 2 <= len(saved) < 7
    for data in saved.values():
        json.loads(data)  # every file is whole
    manifest = json.loads((out / "class.json").read_text())
    assert manifest["interrupted"] is True and manifest["finished_at"] is None

    resumed = run_class(course, submissions, out, "-j", "2")
    assert resumed.returncode == 0, resumed.stderr
    assert f"{len(saved)} already graded and unchanged, {7 - len(saved)} to grade" in resumed.stderr
    for name, data in saved.items():
        assert (out / "results" / name).read_bytes() == data
    assert len(list((out / "results").glob("*.json"))) == 7


def test_results_of_another_class_are_not_mixed_in(toy_class, tmp_path):
    course, submissions = toy_class
    out = tmp_path / "results"
    (submissions / "erin.py").unlink()
    assert run_class(course, submissions, out).returncode == 0
    other = tmp_path / "other-class"
    other.mkdir()
    (other / "zed.py").write_text(solution_source())
    proc = run_class(course, other, out)
    assert proc.returncode == 2 and "write these results somewhere else" in proc.stderr


def test_a_course_class_and_results_moved_elsewhere_are_not_graded_again(toy_class, tmp_path):
    """Nothing stored depends on where the course, the class or the results are: a copy reuses every grade."""
    course, submissions = toy_class
    (submissions / "erin.py").unlink()
    out = tmp_path / "results"
    assert run_class(course, submissions, out, "-j", "2").returncode == 0
    before = {p.name: p.read_bytes() for p in (out / "results").glob("*.json")}
    for path in (out / "results").glob("*.json"):
        record = json.loads(path.read_text())
        assert str(tmp_path) not in json.dumps(record), f"{path.name} names an absolute path"
    moved = tmp_path / "elsewhere" / "mount"
    moved.mkdir(parents=True)
    for name in ("course", "class", "results"):
        shutil.copytree(tmp_path / name, moved / name, symlinks=True)
    again = run_class(moved / "course", moved / "class", moved / "results", "-j", "2")
    assert again.returncode == 0, again.stderr
    assert "4 already graded and unchanged, 0 to grade" in again.stderr
    assert {p.name: p.read_bytes() for p in (moved / "results" / "results").glob("*.json")} == before


def test_only_some_functions_are_kept_apart_from_full_grades(toy_class, tmp_path):
    course, submissions = toy_class
    (submissions / "erin.py").unlink()
    out = tmp_path / "results"
    partial = run_class(course, submissions, out, "--only", "add")
    assert partial.returncode == 0, partial.stderr
    assert set(grades(out)["alice"]["functions"]) == {"add"}
    full = run_class(course, submissions, out)
    assert "0 already graded and unchanged, 4 to grade" in full.stderr
    assert set(grades(out)["alice"]["functions"]) == {"double", "add", "scale"}
    unknown = run_class(course, submissions, out, "--only", "nope")
    assert unknown.returncode == 2 and "not a function of this course: nope" in unknown.stderr


def test_submission_discovery(tmp_path):
    (tmp_path / "alice").mkdir()
    (tmp_path / "bob.py").write_text("")
    (tmp_path / "__pycache__").mkdir()
    (tmp_path / "readme.md").write_text("")
    assert list(discover_submissions(tmp_path)) == ["alice", "bob"]
    (tmp_path / "alice.py").write_text("")
    with pytest.raises(GraderError, match="two submissions for 'alice'"):
        discover_submissions(tmp_path)
    with pytest.raises(GraderError, match="holds no submissions"):
        discover_submissions(tmp_path / "alice")
    with pytest.raises(GraderError, match="not a directory"):
        discover_submissions(tmp_path / "missing")


def test_help_describes_the_command():
    proc = grader("grade-class", "--help", cwd=Path(os.getcwd()))
    assert proc.returncode == 0
    for option in ("-j N", "--out DIR", "--force", "--require-sandbox", "--no-sandbox"):
        assert option in proc.stdout


def test_one_ungradable_submission_does_not_stop_the_class(tmp_path):
    """A submission the grader will not run (too much code) earns zero with a message; the others are graded."""
    course = make_toy_course(tmp_path / "course")
    submissions = tmp_path / "class"
    submissions.mkdir()
    (submissions / "alice.py").write_text(solution_source())
    huge = submissions / "huge"
    huge.mkdir()
    (huge / "toy.py").write_text("# padding\n" * 2_200_000)  # over 20 MB of Python
    (submissions / "zoe.py").write_text(solution_source())
    out = tmp_path / "out"
    proc = run_class(course, submissions, out, "-j", "1")
    assert proc.returncode == 0, proc.stderr
    assert {s: g["total"] for s, g in grades(out).items()} == {"alice": 4.0, "huge": 0.0, "zoe": 4.0}
    record = json.loads((out / "results" / "huge.json").read_text())
    assert all("more than 20 MB of Python files" in f["error"] for f in record["result"]["functions"].values())
    assert record["submission_hash"] == ""  # never current: a rerun looks again


def test_a_submission_of_too_many_files_is_refused_and_the_class_goes_on(tmp_path):
    """Empty files pass every byte bound: the walk of a submission stops at MAX_SUBMISSION_ENTRIES entries
    (review attack many_empty_files: 100,000 empty .py files held a class of two for 43 s)."""
    from grader.core.staging import MAX_SUBMISSION_ENTRIES, SubmissionRefused, submission_files

    course = make_toy_course(tmp_path / "course")
    submissions = tmp_path / "class"
    submissions.mkdir()
    (submissions / "alice.py").write_text(solution_source())
    many = submissions / "many"
    (many / "pkg").mkdir(parents=True)
    (many / "toy.py").write_text(solution_source())
    for i in range(MAX_SUBMISSION_ENTRIES):
        (many / "pkg" / f"m{i:05d}.py").touch()
    with pytest.raises(SubmissionRefused, match="more than 5,000 files and folders"):
        submission_files(many)
    out = tmp_path / "out"
    proc = run_class(course, submissions, out, "-j", "1")
    assert proc.returncode == 0, proc.stderr
    assert {s: g["total"] for s, g in grades(out).items()} == {"alice": 4.0, "many": 0.0}
    record = json.loads((out / "results" / "many.json").read_text())
    assert all("more than 5,000 files and folders" in f["error"] for f in record["result"]["functions"].values())


def test_results_directory_is_locked_during_a_run(tmp_path):
    import fcntl

    course = make_toy_course(tmp_path / "course")
    submissions = tmp_path / "class"
    submissions.mkdir()
    (submissions / "alice.py").write_text(solution_source())
    out = tmp_path / "out"
    out.mkdir()
    with open(out / ".lock", "w") as held:
        fcntl.flock(held, fcntl.LOCK_EX | fcntl.LOCK_NB)
        proc = run_class(course, submissions, out)
    assert proc.returncode == 2 and "another grading run is writing to" in proc.stderr


def test_a_kept_pool_grades_several_classes_with_the_same_processes(toy_class, tmp_path):
    """The sessions of one ``grader autograde`` of several assignments: started once, each record
    current for exactly the functions it was graded on (a later run of those alone keeps it)."""
    from grader.core.course import load_course
    from grader.core.fingerprint import run_fingerprint
    from grader.engine.dispatch import ClassRoster, GradingOptions, grade_class
    from grader.engine.local import LocalPool

    course_root, submissions = toy_class
    (submissions / "erin.py").unlink()
    course = load_course(course_root)
    students = {p.stem: p for p in submissions.iterdir() if not p.name.startswith(".") and p.suffix != ".txt"}
    both = ["add", "double"]
    pids = []
    with LocalPool(
        course, jobs=2, course_hash=run_fingerprint(course, both), only=both, log_dir=tmp_path / "logs"
    ) as pool:
        for only in (["add"], ["double"]):
            run = grade_class(
                course,
                ClassRoster(students),
                GradingOptions(jobs=2, only=tuple(only), out=tmp_path / only[0], pool=pool),
            )
            assert sorted(run.graded) == sorted(students) and not run.failed
            pids.append(pool.pids())
        assert len(pids[0]) == 2 and pids[0] == pids[1]
        # Each process's log says what it graded (its pytest thread holds sys.stdout meanwhile).
        logs = "".join(p.read_text() for p in (tmp_path / "logs").glob("worker-*.log"))
        assert all(logs.count(f"grading {student}") == 2 for student in students), logs
        alive = list(pool.processes)
        pool.close()  # as a run that fails does: the next run starts new processes
        assert all(p.process.poll() is not None for p in alive), "closing the pool ends its processes"
        again = grade_class(
            course, ClassRoster(students), GradingOptions(jobs=2, only=("add",), out=tmp_path / "again", pool=pool)
        )
        assert sorted(again.graded) == sorted(students) and not again.failed
        assert pool.pids() and not pool.pids() & pids[0]
        alive = list(pool.processes)
    assert all(p.process.poll() is not None for p in alive), "closing the pool ends its processes"
    for only in (["add"], ["double"]):
        assert set(grades(tmp_path / only[0])["alice"]["functions"]) == set(only)
        assert grades(tmp_path / only[0])["carol"]["total"] == 0 < grades(tmp_path / only[0])["alice"]["total"]
        again = grade_class(course, ClassRoster(students), GradingOptions(only=tuple(only), out=tmp_path / only[0]))
        assert sorted(again.up_to_date) == sorted(students) and not again.graded


class _FailingBackend:
    """Sessions that lose every submission they are given (a worker that keeps dying)."""

    where = "nowhere"

    def run(self, dispatcher) -> None:
        while (parcel := dispatcher.next("s1")) is not None:
            dispatcher.lost(parcel.student, "s1", "the session died")


def test_a_failed_regrade_leaves_not_graded_never_the_old_grade(tmp_path):
    # A stored 4/4 was kept in summary.csv and the report after the student's code changed
    # and could not be graded again: a record is only ever the grade of what is handed in now.
    from grader.core.course import load_course
    from grader.engine.dispatch import ClassRoster, GradingOptions, grade_class
    from grader.report.build import load_class

    course = make_toy_course(tmp_path / "course")
    submissions = tmp_path / "class"
    submissions.mkdir()
    (submissions / "alice.py").write_text(solution_source())
    (submissions / "bob.py").write_text(solution_source())
    out = tmp_path / "results"
    assert run_class(course, submissions, out).returncode == 0
    assert grades(out)["alice"]["total"] == 4
    (submissions / "alice.py").write_text(wrong_source())  # changed: the stored 4/4 is no grade of it
    run = grade_class(
        load_course(course),
        ClassRoster(discover_submissions(submissions), root=submissions),
        GradingOptions(out=out, pool=_FailingBackend()),
    )
    assert "alice" in run.failed and "bob" not in run.failed
    assert "alice" not in grades(out)
    assert grades(out)["bob"]["total"] == 4  # current: kept, not graded again
    rows = {row["student"]: row for row in csv.DictReader((out / "summary.csv").open())}
    assert rows["alice"]["total"] == "" and rows["alice"]["limits"].startswith("not graded"), rows["alice"]
    assert rows["bob"]["total"] == "4"
    assert [r.student for r in load_class(out).records] == ["bob"]


def test_feedback_writes_a_readable_escaped_page_per_student(toy_class, tmp_path):
    """`grader feedback RESULTS`: an HTML page and a Markdown file per student with the scores and
    messages; what a student's exception says is text, never markup."""
    course, submissions = toy_class
    for entry in ("erin.py", "carol", "dave"):  # keep it quick
        shutil.rmtree(submissions / entry) if (submissions / entry).is_dir() else (submissions / entry).unlink()
    payload = "<script>alert(1)</script> [x](javascript:alert(2))"
    (submissions / "mallory.py").write_text(
        solution_source().replace("return 2.0 * np.asarray(x, dtype=float)", f"raise ValueError({payload!r})")
    )
    out = tmp_path / "results"
    assert run_class(course, submissions, out).returncode == 0
    proc = grader("feedback", str(out), "--course", str(course), cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    assert "feedback for 3 student(s)" in proc.stderr
    folder = out / "feedback"
    assert sorted(p.name for p in folder.iterdir()) == [
        "alice.html",
        "alice.md",
        "bob.html",
        "bob.md",
        "mallory.html",
        "mallory.md",
    ]
    bob = (folder / "bob.html").read_text()
    assert "feedback for bob" in bob and "2 of 4 points" in bob and "double does not return twice its input" in bob
    assert "- `double`: 0/2" in (folder / "bob.md").read_text()
    assert "all checks passed" in (folder / "alice.html").read_text()
    mallory_html, mallory_md = (folder / "mallory.html").read_text(), (folder / "mallory.md").read_text()
    assert "ValueError" in mallory_html and "<script>" not in mallory_html and "&lt;script&gt;" in mallory_html
    assert "<script>" not in mallory_md and "](javascript" not in mallory_md and r"\<script\>" in mallory_md
    only = grader("feedback", str(out), "--student", "bob", "-o", str(tmp_path / "one"), cwd=tmp_path)
    assert only.returncode == 0 and sorted(p.name for p in (tmp_path / "one").iterdir()) == ["bob.html", "bob.md"]
    missing = grader("feedback", str(out), "--student", "zed", cwd=tmp_path)
    assert missing.returncode == 2 and "no result for: zed" in missing.stderr


def test_due_dates_and_given_submission_times_reach_the_report_and_the_feedback(toy_class, tmp_path):
    """Issue 19, item 4 on the .py route: each assignment's due date and the late policy are on the
    report and the feedback pages; a submission time given as nbgrader's timestamp.txt in the
    student's folder (never a file's own time) costs the late penalty there, per assignment."""
    course, submissions = toy_class
    for entry in ("erin.py", "bob.py"):
        (submissions / entry).unlink()
    yaml = course / "course.yaml"
    yaml.write_text(
        yaml.read_text().replace(
            "    title: Doubling and adding\n", "    title: Doubling and adding\n    due: 2026-12-02 00:00\n"
        )
        + "calendar: {time_zone: Europe/Paris, late_policy: {per_day: 0.25, zero_after_days: 3}}\n"
    )
    (submissions / "dave" / "timestamp.txt").write_text("2026-12-03 09:15:00.000000 UTC\n")  # 1 d 10 h late
    (submissions / "carol" / "timestamp.txt").write_text("<b>yesterday</b>\n")
    out = tmp_path / "results"
    assert run_class(course, submissions, out).returncode == 0
    proc = grader("feedback", str(out), cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    dave = (out / "feedback" / "dave.html").read_text()
    # a1 is due at midnight in Paris (23:00 UTC); a2 has no due date: no penalty there
    assert (
        "due 2026-12-02 00:00 Europe/Paris (25% of the score per day late (or part of a day), 0 after 3 days); "
        "submitted 2026-12-03 09:15:00 UTC, 1 d 10 h late: -1.50 points"
    ) in dave, dave
    assert "no due date (25% of the score per day late" in dave
    assert "4 of 4 points; after the late penalty: 2.50" in dave
    alice = (out / "feedback" / "alice.md").read_text()
    assert "due 2026" in alice and "submitted" not in alice and "after the late penalty" not in alice
    proc = grader("report", str(out), cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    page = (out / "report.html").read_text()
    section = page[page.index("Due dates and late work") : page.index("All students")]
    assert "<code>a1</code>: due 2026-12-02 00:00 Europe/Paris" in section and "<code>a2</code>: no due date" in section
    assert (
        "<td>dave</td><td><code>a1</code></td><td>2026-12-03 09:15:00 UTC</td><td>1 d 10 h</td>"
        "<td class='num'>-1.50</td>" in section
    ), section
    assert "Submission times: 1 of 3" in section
    assert "carol: timestamp.txt does not hold a time" in section and "<b>" not in section


class _Recording:
    """Every event of a run, in order, a record as its student and total (a RunListener)."""

    def __init__(self):
        from grader.engine.events import RunListener

        class Recorder(RunListener):
            def plan(_, total, todo, current):
                self.events.append(("plan", total, todo, current))

            def started(_, session, sandbox, sandboxed):
                self.events.append(("started", session, sandbox, sandboxed))

            def refused(_, session, reason):
                self.events.append(("refused", session, reason))

            def began(_, student, session):
                self.events.append(("began", student, session))

            def graded(_, student, record, session):
                self.events.append(("graded", student, record.student, record.total, session))

            def retry(_, student, session, reason):
                self.events.append(("retry", student, session, reason))

            def failed(_, student, reason, infrastructure=False):
                self.events.append(("failed", student, reason, infrastructure))

            def lost(_, session):
                self.events.append(("lost", session))

        self.events: list[tuple] = []
        self.listener = Recorder()


def test_a_listener_hears_every_event_of_a_run_in_order(tmp_path, monkeypatch):
    """One session grades two students; a submission refused before grading is a zero graded by no
    session ("-"); an entry discovery left out fails first; the run keeps the session's sandbox."""
    from grader.core.course import load_course
    from grader.engine import parcel
    from grader.engine.dispatch import ClassRoster, GradingOptions, grade_class

    course = make_toy_course(tmp_path / "course")
    submissions = tmp_path / "class"
    submissions.mkdir()
    (submissions / "alice.py").write_text(solution_source())
    (submissions / "bob.py").write_text(wrong_source())
    (submissions / "big.py").write_text(solution_source() + "#" * 20_000)
    monkeypatch.setattr(parcel, "MAX_SUBMISSION_BYTES", 10_000)  # big is refused, the others are smaller
    students = {s: submissions / f"{s}.py" for s in ("alice", "bob", "big")}
    recording = _Recording()
    run = grade_class(
        load_course(course),
        ClassRoster(students, root=submissions, skipped={"notes.txt": "not a submission"}),
        GradingOptions(jobs=1, out=tmp_path / "out"),
        listener=recording.listener,
    )
    events = recording.events
    assert events[:2] == [("failed", "notes.txt", "not a submission", False), ("plan", 3, 3, 0)], events
    assert events[2][0] == "started", events
    session, sandbox = events[2][1], events[2][2]
    assert run.sandbox == sandbox and sandbox
    assert events[3:] == [
        ("began", "alice", session),
        ("graded", "alice", "alice", 4.0, session),
        ("began", "bob", session),
        ("graded", "bob", "bob", 2.0, session),
        ("graded", "big", "big", 0.0, "-"),
    ], events


class _LosingBackend:
    """A refused worker, then a session that dies under its submission, then another that loses it too."""

    where = "a script"

    def run(self, dispatcher) -> None:
        dispatcher.listener.refused("w0", "another course")
        dispatcher.listener.started("w1", "bubblewrap", True)
        dispatcher.next("w1")
        dispatcher.session_lost("w1", "the worker died")
        parcel = dispatcher.next("w2")
        dispatcher.lost(parcel.student, "w2", "the worker died again")


def test_a_listener_hears_refusals_retries_and_lost_sessions(tmp_path):
    """A lost session's submission is retried before the session is reported lost (the console's
    order); a second loss fails the submission as the infrastructure's doing."""
    from grader.core.course import load_course
    from grader.engine.dispatch import ClassRoster, GradingOptions, grade_class

    course = make_toy_course(tmp_path / "course")
    submissions = tmp_path / "class"
    submissions.mkdir()
    (submissions / "alice.py").write_text(solution_source())
    recording = _Recording()
    run = grade_class(
        load_course(course),
        ClassRoster({"alice": submissions / "alice.py"}, root=submissions),
        GradingOptions(out=tmp_path / "out", pool=_LosingBackend()),
        listener=recording.listener,
    )
    failure = run.failed["alice"]
    assert "the grading infrastructure failed 2 times" in failure and "the worker died again" in failure
    assert recording.events == [
        ("plan", 1, 1, 0),
        ("refused", "w0", "another course"),
        ("started", "w1", "bubblewrap", True),
        ("began", "alice", "w1"),
        ("retry", "alice", "w1", "the worker died"),
        ("lost", "w1"),
        ("began", "alice", "w2"),
        ("failed", "alice", failure, True),
    ]
    assert run.sandbox == "bubblewrap"
