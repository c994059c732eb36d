"""Running a course with `grader autograde` as a teaching team does (issue 19): several assignments in
one command, a change of the course after release, LMS downloads shaped as each LMS writes them.

Real nbgrader and its SQLite gradebook, on the toy course (a1: double 2 points and add 1; a2: scale).
"""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
from pathlib import Path

import nbformat
import pytest

from grader.autograde.trusted import results_store
from grader.notebooks.gradebook import course_gradebook, gradebook_scores
from tests.helpers import run_grader
from tests.toy_course import a1_notebook, shared_nbgrader_course

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def toy_build(tmp_path_factory):
    course, shared = shared_nbgrader_course(tmp_path_factory)
    built = tmp_path_factory.mktemp("toy") / "built"
    shutil.copytree(shared, built)  # the run's build of a1, and a2 built here
    proc = run_grader(
        "build", "--course", str(course), "--course-dir", str(built), "--assignment", "a2", cwd=built.parent
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr
    return course, built


@pytest.fixture()
def course(toy_build, tmp_path) -> tuple[Path, Path]:
    """A copy of the toy course and of its nbgrader course directory (a1 and a2 built), for one test."""
    shutil.copytree(toy_build[0], tmp_path / "course")
    shutil.copytree(toy_build[1], tmp_path / "nb")
    return tmp_path / "course", tmp_path / "nb"


def hand_in(course_dir: Path, student: str, text: str) -> None:
    folder = course_dir / "submitted" / student / "a1"
    folder.mkdir(parents=True)
    (folder / "a1.ipynb").write_text(text)


def autograde(course: tuple[Path, Path], *args: str) -> subprocess.CompletedProcess:
    return run_grader(
        "autograde",
        *args,
        "--course",
        str(course[0]),
        "--course-dir",
        str(course[1]),
        "--no-sandbox",
        "--jobs",
        "1",
        cwd=course[1].parent,
    )


def flat(text: str) -> str:
    return " ".join(text.split())


# -- item 1: several assignments, one of them without submissions ---------------------------------------
def test_an_assignment_without_submissions_is_skipped_with_its_reason_and_the_next_is_graded(course):
    hand_in(course[1], "alice", a1_notebook(course[1]))
    proc = autograde(course, "a2", "a1")
    assert proc.returncode == 3, proc.stdout + proc.stderr  # some assignments skipped
    out = flat(proc.stdout)
    assert "skipped a2: no submissions of a2" in out, out
    assert "a1: 1 submission(s)" in out, out
    table = out[out.index("every assignment asked for") :]
    assert re.search(r"a2 │ skipped │ no submissions of a2", table) and re.search(r"a1 │ graded │ 1 submission", table)
    assert {r.student: r.total for r in results_store(course[1], "a1").all_records()} == {"alice": 3.0}
    assert gradebook_scores(course_gradebook(course[1]), "a1") == {"alice": {"double": 2.0, "add": 1.0}}
    # The assignments were graded together, in scratch results that are gone: only theirs and the logs stay.
    assert sorted(p.name for p in (course[1] / "grader-results").iterdir()) == ["a1", "logs"]


def test_nothing_to_grade_in_any_assignment_exits_2(course):
    proc = autograde(course, "a1", "a2")
    assert proc.returncode == 2, proc.stdout + proc.stderr
    assert "skipped a1" in proc.stdout and "skipped a2" in proc.stdout


# -- item 2: the points of an exercise change after release --------------------------------------------
def test_a_points_change_after_release_says_what_to_run_and_keeps_manual_grades(course):
    """The documented change (edit course.yaml, run `grader build` again) walked end to end: autograde
    refuses to record grades nbgrader would cap at the old maximum, names the exact command, and after
    it the new points are graded with the submissions and manual grades kept."""
    from nbgrader.api import Gradebook

    hand_in(course[1], "alice", a1_notebook(course[1]))
    assert autograde(course, "a1").returncode == 0
    url = course_gradebook(course[1]).url
    with Gradebook(url, "toy") as gb:
        grade = gb.find_grade("test_add", "a1", "a1", "alice")
        grade.manual_score = 0.5  # a TA's manual grade in formgrader
        gb.db.commit()
    yaml = course[0] / "course.yaml"
    yaml.write_text(
        yaml.read_text().replace(
            "{function: double, module: toy, points: 2", "{function: double, module: toy, points: 3"
        )
    )
    proc = autograde(course, "a1")
    assert proc.returncode == 2, proc.stdout + proc.stderr
    message = flat(proc.stderr)
    assert "points of a1 changed in course.yaml since it was built (double: 2 -> 3)" in message, message
    assert "mismatch" not in proc.stdout
    command = re.search(r"Run `grader (build [^`]+)`", message).group(1).split()
    rebuilt = run_grader(*command, cwd=course[1].parent)
    assert rebuilt.returncode == 0, rebuilt.stdout + rebuilt.stderr
    proc = autograde(course, "a1")
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert gradebook_scores(course_gradebook(course[1]), "a1") == {"alice": {"double": 3.0, "add": 1.0}}
    # item 7: the table shows the gradebook's score (what formgrader and exports show), the manual grade marked
    assert re.search(r"alice │ 3\.50/4 \(manual: add; autograded 4\)", flat(proc.stdout)), proc.stdout
    with Gradebook(url, "toy") as gb:
        assert gb.find_grade("test_add", "a1", "a1", "alice").manual_score == 0.5
        assert gb.find_grade_cell("test_double", "a1", "a1").max_score == 3.0
        assert gb.find_submission("a1", "alice").max_score == 4.0
    assert nbformat.read(course[1] / "submitted/alice/a1/a1.ipynb", as_version=4)  # the submission is still there


# -- item 3: an LMS download through `grader autograde --zip` -----------------------------------------
def test_a_canvas_download_is_collected_by_user_id_and_what_is_left_out_is_said_before_grading(course, tmp_path):
    """Canvas's shape (recognised from the names): each student by Canvas's user id, two who share a
    name kept apart, its LATE mark, no submission time (Canvas dates every entry when it makes the zip,
    issue 27), and the fix for a name no LMS writes, printed before the grading table; exit status 4."""
    from nbgrader.api import Gradebook

    from tests.hostile_archives import archive

    notebook = a1_notebook(course[1])
    stub = a1_notebook(course[1], {"double": "def double(x):\n    return x\n"})
    download = archive(
        tmp_path / "submissions.zip",
        {
            "smithjohn_2001_910001_a1.ipynb": (notebook, (2026, 12, 1, 22, 30, 0)),
            "smithjohn_2002_910002_a1.ipynb": (stub, (2026, 12, 1, 22, 30, 2)),
            "m\u00fcllerzo\u00eb_LATE_1005_900004_a1-1.ipynb": (notebook, (2026, 12, 3, 9, 15, 0)),
            "Frank's notebook.ipynb": notebook,
        },
    )
    proc = autograde(course, "a1", "--zip", str(download))
    assert proc.returncode == 4, proc.stdout + proc.stderr
    out = flat(proc.stdout)
    assert (
        "collected 3 file(s) of 3 student(s) from submissions.zip into submitted/ (a canvas download "
        "(recognised from its names)" in out
    ), out
    assert "marked late by the LMS: canvas-1005" in out
    assert "2 students are named smithjohn (2001, 2002): kept apart as canvas-2001, canvas-2002" in out
    left_out = out.index(
        "not collected: submissions.zip: Frank's notebook.ipynb: its name is not shaped like the rest of this "
        "canvas download"
    )
    assert left_out < out.index("a1: 3 submission(s)"), "what was not collected comes first"
    assert re.search(r"canvas-1005 \(m\u00fcllerzo\u00eb\) │ 3/3", out), out
    assert gradebook_scores(course_gradebook(course[1]), "a1") == {
        "canvas-1005": {"double": 2.0, "add": 1.0},
        "canvas-2001": {"double": 2.0, "add": 1.0},
        "canvas-2002": {"double": 0.666667, "add": 0.0},  # the other John Smith's own, unfinished notebook
    }
    with Gradebook(course_gradebook(course[1]).url, "toy") as gb:
        assert gb.find_submission("a1", "canvas-1005").timestamp is None  # no time is made up
        student = gb.find_student("canvas-2001")
        assert (student.first_name, student.lms_user_id) == ("smithjohn", "2001")  # as Canvas writes them


def test_a_module_in_a_download_is_graded_beside_or_instead_of_the_notebook(course, tmp_path):
    """A .py of the notebook's exercises in an LMS download: alone, the release notebook stands in
    and the module is graded; beside a notebook whose cell is an untouched stub, the module's
    implemented function is graded and the notebook's implemented one too."""
    from tests.hostile_archives import archive
    from tests.toy_course import solution_source

    module = solution_source().split("def scale")[0]  # toy.py's double and add (and other.py's imports)
    half = a1_notebook(
        course[1], {"double": "import numpy as np\n\n\ndef double(x):\n    return 2.0 * np.asarray(x, dtype=float)\n"}
    )  # add left as the stub
    download = archive(
        tmp_path / "submissions.zip",
        {
            "gregsmith_3456_567892_toy.py": module,
            "millerfrank_1234_567890_a1.ipynb": half,
            "millerfrank_1234_567891_toy.py": "def add(a, b):\n    return float(a) + float(b)\n\n"
            "def double(x):\n    return x\n",
        },
    )
    proc = autograde(course, "a1", "--zip", str(download), "--details")
    assert proc.returncode == 0, proc.stdout + proc.stderr
    out = flat(proc.stdout)
    assert (
        "no notebook, graded from their .py modules (the release notebook stands in for nbgrader): canvas-3456" in out
    ), out
    # issue 27: no false alarm for a modules-only submission (nothing changed, nothing rescued)
    assert "not collected" not in out and "changed while" not in out and "rescued" not in out, out
    assert gradebook_scores(course_gradebook(course[1]), "a1") == {
        "canvas-3456": {"double": 2.0, "add": 1.0},
        "canvas-1234": {"double": 2.0, "add": 1.0},
    }
    assert "graded from toy.py, which implements it (the notebook's cell has it unfinished)" in out, out


# -- item 6: a normal cycle prints no warning -----------------------------------------------------------
def test_a_normal_cycle_prints_no_warning_and_tampering_still_warns(course):
    """autograde recording new submissions (SQLAlchemy's SAWarning), generate_feedback (traitlets'
    "not recognized by SanitizeStudentHTML"), formgrader's own autograde of an untouched student
    (nbgrader's "checksum has changed" for every cell with hidden tests): silent. A student who
    edits a locked test cell is still reported by nbgrader."""
    from grader.build.nbgrader_run import nbgrader_env

    hand_in(course[1], "alice", a1_notebook(course[1]))
    tampered = nbformat.reads(a1_notebook(course[1]), as_version=4)
    for cell in tampered.cells:
        if cell.metadata.get("nbgrader", {}).get("grade_id") == "test_add":
            cell.source += "\n# edited by the student"
    hand_in(course[1], "bob", nbformat.writes(tampered))
    proc = autograde(course, "a1")
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert proc.stderr == "", proc.stderr

    def nbgrader(*args: str) -> str:
        done = subprocess.run(
            [sys.executable, "-m", "nbgrader", *args],
            cwd=course[1],
            capture_output=True,
            text=True,
            env=nbgrader_env(),
            timeout=600,
        )
        assert done.returncode == 0, done.stdout + done.stderr
        return "\n".join(
            line
            for line in (done.stdout + done.stderr).splitlines()
            if "WARNING" in line and "Removing existing assignment" not in line
        )  # --force says it replaces

    assert nbgrader("generate_feedback", "a1") == ""
    assert nbgrader("autograde", "a1", "--student", "alice", "--force") == ""
    assert "Attribute 'checksum' for cell test_add has changed!" in nbgrader(
        "autograde", "a1", "--student", "bob", "--force"
    )
    assert gradebook_scores(course_gradebook(course[1]), "a1")["alice"] == {"double": 2.0, "add": 1.0}


# -- item 4: due dates, the late policy and extensions -------------------------------------------------
def test_due_dates_the_late_policy_and_extensions_reach_nbgrader_and_every_table(course, tmp_path):
    """course.yaml's due date, late policy and per-student extensions, through `grader build`, into
    nbgrader's gradebook and late-submission plugin: a submission collected from Brightspace (whose
    folders carry the submission time) 1 d 9 h late loses 2 days' share, to the hundredth; one with an
    extension counts from its own due date, an excused one loses nothing; the autograde table, nbgrader's
    feedback, its export and its log show it, without float noise."""
    import csv

    from nbgrader.api import Gradebook

    from grader.build.nbgrader_run import nbgrader_env
    from tests.hostile_archives import archive

    yaml = course[0] / "course.yaml"
    yaml.write_text(
        yaml.read_text().replace(
            "    title: Doubling and adding\n", "    title: Doubling and adding\n    due: 2026-12-02 00:00\n"
        )
        + "calendar:\n  time_zone: UTC\n  late_policy: {per_day: 0.1, zero_after_days: 3}\n  extensions:\n"
        "    - {student: brightspace-3003, assignment: a1, due: 2026-12-04 00:00}\n"
        "    - {student: brightspace-4004, assignment: a1, excused: true}\n"
    )
    rebuilt = run_grader(
        "build", "--course", str(course[0]), "--course-dir", str(course[1]), "--assignment", "a1", cwd=tmp_path
    )
    assert rebuilt.returncode == 0, rebuilt.stdout + rebuilt.stderr
    notebook = a1_notebook(course[1])
    download = archive(
        tmp_path / "submissions.zip",
        {
            "A1/11-1001 - Frank Miller - Dec 1, 2026 1030 PM/a1.ipynb": notebook,
            "A1/12-2002 - Jane Smith - Dec 3, 2026 915 AM/a1.ipynb": notebook,
            "A1/13-3003 - Ann Leroy - Dec 3, 2026 915 AM/a1.ipynb": notebook,  # her own due date: Dec 4
            "A1/14-4004 - Bo Chen - Dec 9, 2026 900 AM/a1.ipynb": notebook,  # excused
            "A1/15-5005 - Li Wu - Dec 9, 2026 900 AM/a1.ipynb": notebook,
            "A1/index.html": "<html></html>",
        },
    )
    proc = autograde(course, "a1", "--zip", str(download))
    assert proc.returncode == 0, proc.stdout + proc.stderr
    out = flat(proc.stdout)
    assert "a1: 5 submission(s) (due 2026-12-02 00:00 UTC, 10% of the score per day late" in out, out
    # The table: two late cells, Jane's and Li's (Ann's own due date and Bo's excuse count)
    assert re.findall(r"\d d \d+ h \([^)]*\)", out) == ["1 d 9 h (-0.60)", "7 d 9 h (-3)"], out
    table = out[out.index("a1: 5 submission(s)") :]
    assert table.index("brightspace-2002") < table.index("1 d 9 h") < table.index("brightspace-3003"), out
    with Gradebook(course_gradebook(course[1]).url, "toy") as gb:
        assert str(gb.find_assignment("a1").duedate) == "2026-12-02 00:00:00"
        assert str(gb.find_submission("a1", "brightspace-2002").timestamp) == "2026-12-03 09:15:00"
        penalties = {
            s: gb.find_submission("a1", f"brightspace-{s}").late_submission_penalty for s in ("2002", "3003", "4004")
        }
        assert penalties == {"2002": 0.6, "3003": 0, "4004": 0}  # 3 x 0.1 x 2 days, not 0.6000000000000001
    env = nbgrader_env()
    logs = ""
    hand_in(course[1], "newcomer", notebook)  # plain nbgrader autograde records a new submission
    for args in (["autograde", "a1", "--force"], ["generate_feedback", "a1"], ["export"]):
        done = subprocess.run(
            [sys.executable, "-m", "nbgrader", *args],
            cwd=course[1],
            capture_output=True,
            text=True,
            env=env,
            timeout=600,
        )
        assert done.returncode == 0, done.stdout + done.stderr
        logs += done.stdout + done.stderr
    assert "Late submission penalty (Score: -0.6)" in (course[1] / "feedback/brightspace-2002/a1/a1.html").read_text()
    assert "Late submission penalty: 0.6\n" in logs and "0.6000000000000001" not in logs, logs
    assert "SAWarning" not in logs, logs  # plain nbgrader autograde (formgrader's button) is quiet
    with open(course[1] / "grades.csv", newline="") as handle:
        rows = {r["student_id"]: r for r in csv.DictReader(handle)}
    assert rows["brightspace-2002"]["late_submission_penalty"] == "0.6"
    assert float(rows["brightspace-2002"]["score"]) == pytest.approx(2.4) and float(rows["newcomer"]["score"]) == 3.0
    assert float(rows["brightspace-5005"]["score"]) == 0.0 and float(rows["brightspace-4004"]["score"]) == 3.0


# -- item 5: a roster in, grades out to an LMS -----------------------------------------------------------
def test_a_roster_fills_the_gradebook_and_exports_are_what_each_lms_imports(course, tmp_path):
    import csv

    from nbgrader.api import Gradebook

    from grader.build.nbgrader_run import nbgrader_env

    hand_in(course[1], "alice", a1_notebook(course[1]))
    hand_in(course[1], "bob", a1_notebook(course[1], {"double": "def double(x):\n    return x\n"}))
    assert autograde(course, "a1").returncode == 0
    with Gradebook(course_gradebook(course[1]).url, "toy") as gb:  # a TA's manual grade in formgrader
        grade = gb.find_grade("test_double", "a1", "a1", "bob")
        grade.manual_score = 1.5
        gb.db.commit()
    roster = tmp_path / "roster.csv"
    roster.write_text(
        "id,name,email,lms_id\nalice,Alice Martin,alice@example.org,1001\n"
        "bob,=HYPERLINK(1) Stone,bob@example.org,1002\ncarol,Carol Li,carol@example.org,1003\n"
    )
    args = ["--course", str(course[0]), "--course-dir", str(course[1])]
    proc = run_grader("roster", str(roster), *args, cwd=tmp_path)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "1 student(s) added and 2 updated" in flat(proc.stdout)
    # nbgrader's own export now has the names and e-mails
    done = subprocess.run(
        [sys.executable, "-m", "nbgrader", "export"],
        cwd=course[1],
        capture_output=True,
        text=True,
        env=nbgrader_env(),
        timeout=600,
    )
    assert done.returncode == 0, done.stderr
    with open(course[1] / "grades.csv", newline="") as handle:
        rows = {r["student_id"]: r for r in csv.DictReader(handle) if r["assignment"] == "a1"}
    assert (rows["alice"]["first_name"], rows["alice"]["last_name"], rows["alice"]["email"]) == (
        "Alice",
        "Martin",
        "alice@example.org",
    )

    def export(lms: str) -> list[list[str]]:
        out = tmp_path / f"{lms}.csv"
        done = run_grader("export", "--lms", lms, "-o", str(out), "--assignment", "a1", *args, cwd=tmp_path)
        assert done.returncode == 0, done.stdout + done.stderr
        with open(out, newline="") as handle:
            return list(csv.reader(handle))

    # Canvas, Grades > Import: Student, ID, SIS User ID, SIS Login ID, Section, then assignments; Points Possible.
    # The SIS columns never hold the grader's ids (issue 27): without Canvas's own export they stay empty.
    assert export("canvas") == [
        ["Student", "ID", "SIS User ID", "SIS Login ID", "Section", "a1"],
        ["Points Possible", "", "", "", "", "3"],
        ["Martin, Alice", "1001", "", "", "", "3"],
        ["Stone, =HYPERLINK(1)", "1002", "", "", "", "1.50"],  # manual 1.5, add 0
        ["Li, Carol", "1003", "", "", "", ""],
    ]
    # With the gradebook Canvas exports (Grades > Export), the file is headed and keyed as Canvas's own:
    # its assignment's column (named like the assignment's title), its students' Student, ID and SIS cells.
    canvas = tmp_path / "canvas_export.csv"
    canvas.write_text(
        "Student,ID,SIS User ID,SIS Login ID,Section,Doubling and adding (55501),Current Points,Final Points\n"
        "    Points Possible,,,,,3.00,(read only),(read only)\n"
        '"Martin, Alice",1001,S-77,amartin,Section 1,,0.00,0.00\n'
        '"Stone, Bob",1002,S-78,bstone,Section 1,,0.00,0.00\n'
        '"Student, Test",9999,,,Section 1,,0.00,0.00\n'
    )
    out = tmp_path / "import.csv"
    done = run_grader(
        "export",
        "--lms",
        "canvas",
        "--canvas-gradebook",
        str(canvas),
        "-o",
        str(out),
        "--assignment",
        "a1",
        *args,
        cwd=tmp_path,
    )
    assert done.returncode == 1, done.stdout + done.stderr  # carol is not a student of that gradebook: said so
    assert "carol: Canvas ID 1003 is not a student of the Canvas gradebook" in flat(done.stdout)
    with open(out, newline="") as handle:
        assert list(csv.reader(handle)) == [
            ["Student", "ID", "SIS User ID", "SIS Login ID", "Section", "Doubling and adding (55501)"],
            ["Points Possible", "", "", "", "", "3"],
            ["Martin, Alice", "1001", "S-77", "amartin", "Section 1", "3"],
            ["Stone, Bob", "1002", "S-78", "bstone", "Section 1", "1.50"],
        ]
    # Moodle, Import grades from CSV: users matched on ID number or Email address.
    assert export("moodle") == [
        ["First name", "Last name", "ID number", "Email address", "a1"],
        ["Alice", "Martin", "1001", "alice@example.org", "3"],
        ["'=HYPERLINK(1)", "Stone", "1002", "bob@example.org", "1.50"],  # not a formula
        ["Carol", "Li", "1003", "carol@example.org", ""],
    ]
    assert export("csv")[0] == ["student_id", "first_name", "last_name", "email", "lms_id", "a1", "total"]
    bad = tmp_path / "bad.csv"
    bad.write_text("id,email\nalice,alice@example.org\n../etc,x@example.org\n")
    proc = run_grader("roster", str(bad), *args, cwd=tmp_path)
    assert proc.returncode == 2 and "roster line 3: id '../etc' is not a usable student id" in proc.stderr


# -- item 9: a course moves from SQLite to PostgreSQL with its grades ------------------------------------
@pytest.fixture(scope="module")
def postgres():
    from tests.pgserver import PostgresServer, server_bindir

    bindir = server_bindir()
    if bindir is None:
        pytest.skip(
            "no PostgreSQL server programs (initdb, pg_ctl, postgres) on this machine: install the "
            "postgresql package (.ci/run does)"
        )
    server = PostgresServer(bindir).start()
    yield server
    server.stop()


def test_gradebook_copy_moves_grades_and_manual_grades_to_postgres(course, postgres, tmp_path):
    from nbgrader.api import Gradebook

    hand_in(course[1], "alice", a1_notebook(course[1]))
    hand_in(course[1], "bob", a1_notebook(course[1], {"double": "def double(x):\n    return x\n"}))
    assert autograde(course, "a1").returncode == 0
    sqlite_url = course_gradebook(course[1]).url
    with Gradebook(sqlite_url, "toy") as gb:
        gb.find_grade("test_double", "a1", "a1", "bob").manual_score = 1.5
        gb.find_comment("double", "a1", "a1", "bob").manual_comment = "see me"
        gb.db.commit()
    url = postgres.create_database("moved")
    switch = [
        "build",
        "--course",
        str(course[0]),
        "--course-dir",
        str(course[1]),
        "--assignment",
        "a1",
        "--no-leak-check",
        "--db",
        url,
    ]
    proc = run_grader(*switch, cwd=tmp_path)  # switching the URL alone would leave the grades behind
    assert proc.returncode == 2, proc.stdout + proc.stderr
    assert "the course's grades are in sqlite:" in flat(proc.stderr) and "grader gradebook copy" in proc.stderr
    proc = run_grader("gradebook", "copy", "--from", sqlite_url, "--to", url, cwd=tmp_path)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert postgres.password not in proc.stdout  # the URL is shown masked
    with Gradebook(url, "toy") as gb:
        bob = gb.find_submission("a1", "bob")
        assert gb.find_grade("test_double", "a1", "a1", "bob").manual_score == 1.5
        assert gb.find_comment("double", "a1", "a1", "bob").manual_comment == "see me"
        assert (float(bob.score), float(gb.find_submission("a1", "alice").score)) == (1.5, 3.0)
    proc = run_grader(*switch, cwd=tmp_path)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    # the course now uses PostgreSQL: autograde finds its grades there (nothing to record anew, all verified)
    proc = autograde(course, "a1")
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert gradebook_scores(course_gradebook(course[1], url), "a1")["alice"] == {"double": 2.0, "add": 1.0}
    with Gradebook(url, "toy") as gb:
        assert gb.find_grade("test_double", "a1", "a1", "bob").manual_score == 1.5
    again = run_grader("gradebook", "copy", "--from", sqlite_url, "--to", url, cwd=tmp_path)
    assert again.returncode == 2 and "is not empty" in again.stderr
