"""`grader autograde` writes what real `nbgrader autograde` writes, field by field.

One class of the toy course, handed in once, is recorded twice from copies of the same
course directory: by `grader autograde` (its record step, in-process) and by real
`nbgrader autograde --force` with the course's configuration (TrustedGrade fills the cells
from the same trusted records). The submissions exercise nbgrader's autograde steps: outputs
and an image attachment, locked cells edited (source, points, type), a solution cell turned
into markdown, a duplicated cell, a deleted test cell (added back), extra files and a course
file handed in, timestamps before and after the due date under a late-penalty policy, and a
grader's manual score, extra credit, comment and flag from an earlier run. Then everything
formgrader, `generate_feedback` and `export` read must be equal: each autograded folder
(files, bytes, modes), and every gradebook row (submission, notebook, grade and comment,
with the scores nbgrader computes from them and formgrader's submission tables).
A notebook nbgrader's own steps refuse fails on both sides (and is rescued by the grader).
"""

from __future__ import annotations

import json
import shutil
import stat
import subprocess
import sys
from pathlib import Path

import nbformat
import pytest

from grader.build.nbgrader_run import nbgrader_env
from tests.helpers import run_grader
from tests.toy_course import NOTEBOOK_CELLS, shared_nbgrader_course

pytestmark = pytest.mark.slow

DUE = "2024-03-01 12:00:00.000000 UTC"
WRONG_DOUBLE = "def double(x):\n    return x\n"
ATTACHED = {
    "image/png": "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg=="
}


def edit(release: nbformat.NotebookNode, change) -> str:
    nb = nbformat.from_dict(json.loads(json.dumps(release)))
    for cell in nb.cells:
        meta = cell.metadata.get("nbgrader", {})
        if meta.get("solution") and meta.get("grade_id") in NOTEBOOK_CELLS:
            cell.source = NOTEBOOK_CELLS[meta["grade_id"]]
    change(nb)
    return nbformat.writes(nb)


def cell(nb, grade_id):
    return next(c for c in nb.cells if c.metadata.get("nbgrader", {}).get("grade_id") == grade_id)


def with_outputs(nb):
    cell(nb, "double").outputs = [nbformat.v4.new_output("stream", name="stdout", text="ran\n")]
    prose = nbformat.v4.new_markdown_cell("My plot: ![plot](attachment:plot.png)\n\n<b>bold</b> <script>x()</script>")
    prose.attachments = {"plot.png": ATTACHED}
    prose.id = "my-prose"
    nb.cells.insert(7, prose)


def edited_locked(nb):
    cell(nb, "test_double").source = "pass  # my own test"
    cell(nb, "test_add").metadata["nbgrader"]["points"] = 100.0
    cell(nb, "about_toy").cell_type = "raw"


def markdown_solution(nb):
    add = cell(nb, "add")
    add.cell_type = "markdown"
    del add["outputs"], add["execution_count"]


def duplicated(nb):  # nbgrader's DeduplicateIds empties the first copy's metadata, and OverwriteCells fails on it
    copy = nbformat.from_dict(json.loads(json.dumps(cell(nb, "double"))))
    copy.source, copy.id = WRONG_DOUBLE, "a-copy"
    nb.cells.insert(3, copy)


def deleted_test(nb):
    nb.cells.remove(cell(nb, "test_add"))


def deleted_pair(nb):  # nbgrader cannot tell where to put the test cell back: its autograde fails
    nb.cells.remove(cell(nb, "test_add"))
    nb.cells.remove(cell(nb, "add"))


def wrong(nb):
    cell(nb, "double").source = WRONG_DOUBLE


CLASS = {
    "alice": (lambda nb: None, {"notes.txt": "my notes\n", "data.csv": "mine\n"}),
    "bob": (wrong, {"timestamp.txt": "2024-02-28 09:00:00.000000 UTC"}),
    "carol": (with_outputs, {"timestamp.txt": "2024-03-02 10:30:00.000000 UTC"}),
    "dan": (edited_locked, {}),
    "erin": (markdown_solution, {}),
    "femi": (duplicated, {}),
    "gita": (deleted_test, {}),
    "hugo": (deleted_pair, {}),
    "manual": (wrong, {}),
    "stub": (None, {}),
}
REFUSED = ["femi", "hugo"]  # nbgrader's own steps fail on their notebooks


@pytest.fixture(scope="module")
def recorded(tmp_path_factory):
    from nbgrader.api import Gradebook

    root = tmp_path_factory.mktemp("equivalence")
    toy, shared = shared_nbgrader_course(tmp_path_factory)
    built = root / "built"
    shutil.copytree(shared, built)  # changed below: a copy of the run's build
    with open(built / "nbgrader_config.py", "a") as config:  # the instructor's own late policy
        config.write("c.LateSubmissionPlugin.penalty_method = 'zero'\n")
    (built / "source/a1/data.csv").write_text("the course's data\n")
    with Gradebook(f"sqlite:///{built / 'gradebook.db'}", "toy") as gb:
        gb.update_or_create_assignment("a1", duedate=DUE)
    release = nbformat.read(built / "release/a1/a1.ipynb", as_version=4)
    for student, (change, files) in CLASS.items():
        folder = built / "submitted" / student / "a1"
        folder.mkdir(parents=True)
        text = nbformat.writes(release) if change is None else edit(release, change)
        (folder / "a1.ipynb").write_text(text)
        for name, content in files.items():
            (folder / name).write_text(content)
    # A grader's work from an earlier run, entered as formgrader enters it.
    first = run_grader(
        "autograde", "a1", "--course", str(toy), "--course-dir", str(built), "--student", "manual", cwd=root
    )
    assert first.returncode == 0, first.stdout + first.stderr
    with Gradebook(f"sqlite:///{built / 'gradebook.db'}", "toy") as gb:
        grade = gb.find_grade("test_double", "a1", "a1", "manual")
        grade.manual_score, grade.extra_credit = 1.5, 0.5
        gb.find_comment("double", "a1", "a1", "manual").manual_comment = "see me"
        gb.find_submission_notebook("a1", "a1", "manual").flagged = True
        gb.db.commit()

    ours, theirs = root / "ours", root / "theirs"
    shutil.copytree(built, ours)
    shutil.copytree(built, theirs)
    proc = run_grader("autograde", "a1", "--course", str(toy), "--course-dir", str(ours), cwd=root)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    # The same trusted records, so that TrustedGrade grades nothing again.
    shutil.rmtree(theirs / "grader-results")
    shutil.copytree(ours / "grader-results", theirs / "grader-results")
    plain = subprocess.run(
        [sys.executable, "-m", "nbgrader", "autograde", "a1", "--force"],
        cwd=theirs,
        capture_output=True,
        text=True,
        env=nbgrader_env(),
        timeout=600,
    )
    assert "Using the trusted grade of alice/a1" in plain.stdout + plain.stderr, plain.stdout + plain.stderr
    return {"ours": ours, "theirs": theirs, "log": proc.stdout, "nbgrader": plain.stdout + plain.stderr}


def folder_contents(folder: Path) -> dict[str, tuple[int, bytes]]:
    return {
        p.relative_to(folder).as_posix(): (stat.S_IMODE(p.stat().st_mode), p.read_bytes())
        for p in sorted(folder.rglob("*"))
        if p.is_file()
    }


def gradebook_rows(course_dir: Path) -> dict:
    """Everything of a1 that feedback, export and formgrader read, without the random row ids."""
    from nbgrader.api import Gradebook

    def plain(row: dict) -> dict:
        return {k: v for k, v in row.items() if k not in ("id", "notebook_id", "cell_id", "submission_id")}

    rows = {}
    with Gradebook(f"sqlite:///{course_dir / 'gradebook.db'}", "toy") as gb:
        for submission in gb.assignment_submissions("a1"):
            entry = rows[submission.student.id] = {
                "submission": plain(submission.to_dict()),
                "late_submission_penalty": submission.late_submission_penalty,
                "notebooks": {},
            }
            for nb in submission.notebooks:
                entry["notebooks"][nb.name] = {
                    "notebook": plain(nb.to_dict()),
                    "late_submission_penalty": nb.late_submission_penalty,
                    "grades": {g.name: plain(g.to_dict()) for g in nb.grades},
                    "comments": {c.name: plain(c.to_dict()) for c in nb.comments},
                }
        rows["formgrader"] = {
            "submissions": sorted((plain(d) for d in gb.submission_dicts("a1")), key=lambda d: d["student"]),
            "notebook": sorted(
                (plain(d) for d in gb.notebook_submission_dicts("a1", "a1")), key=lambda d: d["student"]
            ),
        }
    return rows


def test_the_autograded_folders_are_byte_for_byte_those_nbgrader_writes(recorded):
    ours, theirs = recorded["ours"] / "autograded", recorded["theirs"] / "autograded"
    students = sorted(s for s in CLASS if s not in REFUSED)
    assert sorted(p.parent.name for p in theirs.glob("*/a1")) == students, recorded["nbgrader"]
    for student in REFUSED:  # the grader rescues them: a note, the trusted grades
        assert f"{student} (rescued)" in recorded["log"]
        assert "grading-note" in (ours / student / "a1/a1.ipynb").read_text()
    for student in students:
        mine, nbgraders = folder_contents(ours / student / "a1"), folder_contents(theirs / student / "a1")
        if student == "gita":  # the cell nbgrader adds back has no id: nbformat draws a random one on reading
            for contents in (mine, nbgraders):
                nb = json.loads(contents["a1.ipynb"][1])
                cell(nbformat.from_dict(nb), "test_add")  # it is there
                added = next(c for c in nb["cells"] if c["metadata"].get("nbgrader", {}).get("grade_id") == "test_add")
                added["id"] = "added"
                contents["a1.ipynb"] = (contents["a1.ipynb"][0], json.dumps(nb).encode())
        assert mine == nbgraders, student
    alice = folder_contents(ours / "alice" / "a1")
    assert alice["notes.txt"][1] == b"my notes\n" and alice["data.csv"][1] == b"the course's data\n"
    assert alice["a1.ipynb"][0] == 0o444
    carol = (ours / "carol/a1/a1.ipynb").read_text()
    assert "data:image/png;base64" in carol and "<script>" not in carol and "ran\\n" not in carol


def test_every_gradebook_row_is_the_one_nbgrader_writes(recorded):
    ours, theirs = gradebook_rows(recorded["ours"]), gradebook_rows(recorded["theirs"])
    # nbgrader's autograde fails on two notebooks (leaving rows without grades); the grader
    # rescues them with the trusted grades.
    rescued = {student: ours.pop(student) for student in REFUSED}
    for student in REFUSED:
        theirs.pop(student, None)
    for table in ours["formgrader"], theirs["formgrader"]:
        table["submissions"] = [d for d in table["submissions"] if d["student"] not in REFUSED]
        table["notebook"] = [d for d in table["notebook"] if d["student"] not in REFUSED]
    assert ours == theirs
    # The fields that matter, as they should be (not merely equal).
    assert ours["carol"]["late_submission_penalty"] == ours["carol"]["submission"]["score"] > 0
    assert ours["bob"]["late_submission_penalty"] == 0
    assert ours["bob"]["submission"]["timestamp"].startswith("2024-02-28")
    manual = ours["manual"]["notebooks"]["a1"]
    assert manual["grades"]["test_double"]["manual_score"] == 1.5
    assert manual["grades"]["test_double"]["needs_manual_grade"]
    assert manual["comments"]["double"]["manual_comment"] == "see me" and manual["notebook"]["flagged"]
    assert ours["stub"]["notebooks"]["a1"]["comments"]["double"]["auto_comment"] == "No response."
    assert ours["alice"]["notebooks"]["a1"]["comments"]["double"]["auto_comment"] is None
    assert ours["dan"]["notebooks"]["a1"]["grades"]["test_add"]["max_score"] == 1.0
    assert rescued["hugo"]["notebooks"]["a1"]["grades"]["test_double"]["auto_score"] == 2.0
    assert rescued["femi"]["notebooks"]["a1"]["grades"]["test_double"]["auto_score"] == 2.0
