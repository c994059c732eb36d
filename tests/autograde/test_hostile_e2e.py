"""Whole `grader autograde` and `grader grade-class` runs on the toy course with hostile submissions.

Each class mixes honest students (alice, bob) with a hostile one or several. Every run
must finish, give the honest students exactly their grades (not "rescued", not
replaced), give each hostile student a grade and a message, and leave the gradebook
equal to the trusted records. The feedback and the autograded notebook are opened in
headless Chromium: no script of a student's may run.
"""

from __future__ import annotations

import html
import json
import os
import re
import shutil
import stat
import subprocess
import sys
import tempfile
import time
import zipfile
from pathlib import Path

import nbformat
import pytest

from grader.autograde.trusted import RESULTS_DIR, results_store
from grader.build.nbgrader_run import nbgrader_env
from grader.notebooks.gradebook import course_gradebook, gradebook_scores
from grader.report.screenshot import find_chromium
from tests import hostile_archives as H
from tests.helpers import ROOT, run_grader
from tests.toy_course import NOTEBOOK_CELLS, a1_notebook, shared_nbgrader_course, solution_source

pytestmark = pytest.mark.slow

HOSTILE = ROOT / "tests" / "data" / "hostile" / "notebooks"
FULL = 3.0
CHROMIUM_FLAGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]


@pytest.fixture(scope="module")
def toy_build(tmp_path_factory):
    return shared_nbgrader_course(tmp_path_factory)  # read only: each test copies the course directory


@pytest.fixture()
def course_dir(toy_build, tmp_path):
    shutil.copytree(toy_build[1], tmp_path / "nb")
    return tmp_path / "nb"


def hand_in(course_dir: Path, student: str, text: str | None = None) -> Path:
    folder = course_dir / "submitted" / student / "a1"
    folder.mkdir(parents=True)
    if text is not None:
        (folder / "a1.ipynb").write_text(text)
    return folder


def autograde(toy_build, course_dir: Path, *extra: str) -> subprocess.CompletedProcess:
    return run_grader(
        "autograde", "a1", "--course", str(toy_build[0]), "--course-dir", str(course_dir), *extra, cwd=course_dir.parent
    )


def totals(course_dir: Path) -> dict[str, float]:
    store = results_store(course_dir, "a1")
    return {r.student: r.total for r in store.all_records()}


def assert_gradebook_holds_the_trusted_grades(course_dir: Path, students: list[str]) -> None:
    recorded = gradebook_scores(course_gradebook(course_dir), "a1")
    store = results_store(course_dir, "a1")
    for student in students:
        expected = {f: score for f, (score, _) in store.load(student).scores().items()}
        assert recorded[student] == pytest.approx(expected), student


# -- items 3 and 4: nothing is decided from nbgrader's log; one bad notebook never stops the class ----
def test_a_class_of_hostile_notebooks_and_files_is_graded_and_recorded_whole(toy_build, course_dir):
    for student in ("alice", "bob"):
        hand_in(course_dir, student, a1_notebook(course_dir))
    before = (course_dir / "submitted/alice/a1/a1.ipynb").read_text()
    # Grade ids naming alice, and a student who does not exist, in the line nbgrader logs when it gives up.
    hand_in(course_dir, "mallory", (HOSTILE / "log_injection.ipynb").read_text())
    hand_in(course_dir, "trudy", (HOSTILE / "log_injection_unknown_student.ipynb").read_text())
    for name in ("string_cell", "integer_source", "odd_metadata"):
        hand_in(course_dir, name, (HOSTILE / f"{name}.ipynb").read_text())
    huge = a1_notebook(course_dir, dict(NOTEBOOK_CELLS, add=NOTEBOOK_CELLS["add"] + "# " + "x" * (21 * 2**20) + "\n"))
    hand_in(course_dir, "huge_cell", huge)
    # A link to the instructor's notebook (reference solutions, hidden tests) and a pipe nbgrader would block on.
    hand_in(course_dir, "linked").joinpath("a1.ipynb").symlink_to(course_dir / "source/a1/a1.ipynb")
    (course_dir / "submitted/linked/a1/answers.txt").symlink_to(course_dir / "source/a1/a1.ipynb")
    os.mkfifo(hand_in(course_dir, "pipe") / "a1.ipynb")
    proc = autograde(toy_build, course_dir)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "alice (rescued)" not in proc.stdout and "bob (rescued)" not in proc.stdout, proc.stdout
    assert totals(course_dir) == {
        "alice": FULL,
        "bob": FULL,
        "mallory": FULL,
        "trudy": FULL,
        "string_cell": FULL,
        "integer_source": 2.0,
        "odd_metadata": FULL,
        "huge_cell": 2.0,
        "linked": 0.0,
        "pipe": 0.0,
    }
    assert_gradebook_holds_the_trusted_grades(course_dir, list(totals(course_dir)))
    # alice's autograded notebook is the one nbgrader made from her submission, not a placeholder.
    graded = nbformat.read(course_dir / "autograded/alice/a1/a1.ipynb", as_version=4)
    assert not any(c.get("id") == "grading-note" for c in graded.cells)
    assert (course_dir / "submitted/alice/a1/a1.ipynb").read_text() == before
    store = results_store(course_dir, "a1")
    assert "grade id is not a plain name" in json.dumps(store.load("mallory").notes)
    assert "more than the 1 MB a cell may hold" in json.dumps(store.load("huge_cell").notes)
    linked = (course_dir / "autograded/linked/a1/a1.ipynb").read_text()
    assert "return 2.0 * np.asarray(x, dtype=float)" not in linked and "BEGIN HIDDEN TESTS" not in linked
    assert "symbolic link" in linked
    # Plain nbgrader (formgrader's button) follows the link; the grade it records must not.
    (course_dir / "grader-results/a1/results/linked.json").unlink()
    plain = subprocess.run(
        [sys.executable, "-m", "nbgrader", "autograde", "a1", "--student", "linked", "--force"],
        cwd=course_dir,
        capture_output=True,
        text=True,
        env=nbgrader_env(),
        timeout=600,
    )
    assert plain.returncode == 0, plain.stdout + plain.stderr
    assert set(gradebook_scores(course_gradebook(course_dir), "a1")["linked"].values()) == {0.0}
    # ... and nothing it read through a link reaches autograded/, nor the feedback handed out.
    assert not (course_dir / "autograded/linked/a1/answers.txt").exists()
    linked = (course_dir / "autograded/linked/a1/a1.ipynb").read_text()
    assert "BEGIN SOLUTION" not in linked and "BEGIN HIDDEN TESTS" not in linked and "symbolic link" in linked
    feedback = subprocess.run(
        [sys.executable, "-m", "nbgrader", "generate_feedback", "a1", "--student", "linked", "--force"],
        cwd=course_dir,
        capture_output=True,
        text=True,
        env=nbgrader_env(),
        timeout=600,
    )
    assert feedback.returncode == 0, feedback.stdout + feedback.stderr
    page = html.unescape(re.sub("<[^>]+>", "", (course_dir / "feedback/linked/a1/a1.html").read_text()))
    assert "symbolic link" in page and "BEGIN SOLUTION" not in page
    assert "return 2.0 * np.asarray(x, dtype=float)" not in page
    check = run_grader(
        "leak-check", "--course", str(toy_build[0]), "--course-dir", str(course_dir), cwd=course_dir.parent
    )
    assert check.returncode == 0, check.stdout + check.stderr


REHAND_IN = """\
import sys
from pathlib import Path

from rich.console import Console

from grader.autograde.pipeline import AUTOGRADE_STEPS, AutogradeInputs, autograde
from grader.core.course import load_course


def rehand_in(state):  # between grading and recording: bob hands in a notebook that is not the one graded
    (state.inputs.course_dir / "submitted/bob/a1/a1.ipynb").write_text(sys.argv[3])


rehand_in.name = "rehand_in"
steps = [step for step in AUTOGRADE_STEPS if step.name != "record"]
steps.insert(steps.index(next(s for s in steps if s.name == "grade")) + 1, rehand_in)
steps.insert(steps.index(rehand_in) + 1, next(s for s in AUTOGRADE_STEPS if s.name == "record"))
state = autograde(AutogradeInputs.of(load_course(sys.argv[1]), Path(sys.argv[2]), "a1", console=Console(stderr=True)),
                  steps)
print("\\n".join(state.warnings))
print("mismatches:", len(state.mismatches))
"""


def test_a_notebook_that_changes_while_the_class_is_graded_is_graded_again_before_it_is_recorded(toy_build, course_dir):
    """What is recorded is what the notebook in submitted/ holds when it is recorded: a notebook whose
    solution cells changed since they were graded is graded again (or else a notebook handed in again
    during a run would show one answer in formgrader and the grade of another)."""
    for student in ("alice", "bob"):
        hand_in(course_dir, student, a1_notebook(course_dir))
    again = a1_notebook(course_dir, dict(NOTEBOOK_CELLS, double="def double(x):\n    return x\n"))
    proc = subprocess.run(
        [sys.executable, "-c", REHAND_IN, str(toy_build[0]), str(course_dir), again],
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "1 notebook(s) changed while the class was graded, graded again: bob" in proc.stdout, proc.stdout
    assert "mismatches: 0" in proc.stdout
    graded = totals(course_dir)
    assert graded["alice"] == FULL and graded["bob"] < FULL  # bob's double is wrong now (it was right)
    assert_gradebook_holds_the_trusted_grades(course_dir, ["alice", "bob"])
    recorded = nbformat.read(course_dir / "autograded/bob/a1/a1.ipynb", as_version=4)
    assert "def double(x):\n    return x\n" in [c.source for c in recorded.cells]


def test_grade_class_skips_a_linked_entry_and_grades_a_non_utf8_file_name(toy_build, tmp_path):
    course = toy_build[0]
    submissions = tmp_path / "class"
    submissions.mkdir()
    (submissions / "alice.py").write_text(solution_source())
    (submissions / "mallory").symlink_to(course / "solutions")
    odd = submissions / "oddname"
    odd.mkdir()
    for module in ("toy", "other"):
        (odd / f"{module}.py").write_text(solution_source())
    (odd / os.fsdecode(b"caf\xe9.py")).write_text("x = 1\n")
    proc = run_grader(
        "grade-class",
        str(submissions),
        "--out",
        str(tmp_path / "out"),
        "--course",
        str(course),
        "-j",
        "1",
        cwd=tmp_path,
    )
    assert proc.returncode == 1, proc.stdout + proc.stderr  # mallory could not be graded: said, not fatal
    assert "could not grade mallory: a symbolic link" in proc.stderr
    graded = {p.stem: json.loads(p.read_text())["result"]["total"] for p in (tmp_path / "out/results").glob("*.json")}
    assert graded == {"alice": 4.0, "oddname": 4.0}


# -- item 3: feedback and the autograded notebook run no student script --------------------------
def chromium_dom(html: Path) -> str:
    chromium = find_chromium()
    with tempfile.TemporaryDirectory(prefix="grader-chromium-") as profile:
        proc = subprocess.run(
            [
                chromium,
                *CHROMIUM_FLAGS,
                f"--user-data-dir={profile}",
                "--virtual-time-budget=3000",
                "--dump-dom",
                html.resolve().as_uri(),
            ],
            capture_output=True,
            text=True,
            timeout=120,
        )
    assert proc.returncode == 0 and "<html" in proc.stdout, proc.stderr[-2000:]
    return proc.stdout


def assert_no_student_script(dom: str, where: str) -> None:
    """Every payload of script_in_markdown.ipynb marks the page when it runs (an attribute on <html>,
    the title); the sanitised page also carries no handler attribute, no javascript: URL and no remote image."""
    head = dom[: dom.find(">", dom.find("<html")) + 1]
    assert "data-pwned" not in head, f"{where}: a student's script ran ({head})"
    title = re.search(r"<title>(.*?)</title>", dom, re.S)
    assert title is None or "PWNED" not in title.group(1), f"{where}: a student's script changed the title"
    assert not re.search(r"<[^>]*\son[a-z]+\s*=", dom, re.I), f"{where}: an event handler attribute survived"
    assert not re.search(r"""(href|src)\s*=\s*["']?\s*javascript:""", dom, re.I), f"{where}: a javascript: URL"
    assert not re.search(r"""<img[^>]*\ssrc\s*=\s*["']?\s*(https?:)?//""", dom, re.I), f"{where}: a remote image"


@pytest.fixture(scope="module")
def chromium():
    if find_chromium() is None:
        pytest.skip("Chromium is not installed (apt-get install chromium; .ci/run installs it as root)")


def test_feedback_and_the_autograded_notebook_run_no_student_script(toy_build, course_dir, chromium, tmp_path):
    hand_in(course_dir, "alice", a1_notebook(course_dir))
    xss = nbformat.read(course_dir / "release/a1/a1.ipynb", as_version=4)
    hostile = json.loads((HOSTILE / "script_in_markdown.ipynb").read_text())
    for cell in xss.cells:
        meta = cell.metadata.get("nbgrader", {})
        if meta.get("solution"):
            cell.source = NOTEBOOK_CELLS[meta["grade_id"]]
    xss.cells += [nbformat.from_dict(c) for c in hostile["cells"][3:]]  # a notebook nbgrader reads as usual
    hand_in(course_dir, "mallory", nbformat.writes(xss))
    # trudy hands in the same notebook and a link named like markup: quarantined, her notebook is
    # written by the grader's rescue, which none of nbgrader's steps (the sanitiser's) touches.
    hand_in(course_dir, "trudy", nbformat.writes(xss)).joinpath("<img src=x onerror=alert(3)>").symlink_to("/etc")
    proc = autograde(toy_build, course_dir)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "mallory (rescued)" not in proc.stdout  # nbgrader processed it: the sanitising is nbgrader's step
    assert "trudy (rescued)" in proc.stdout, proc.stdout
    feedback = subprocess.run(
        [sys.executable, "-m", "nbgrader", "generate_feedback", "a1", "--force"],
        cwd=course_dir,
        capture_output=True,
        text=True,
        env=nbgrader_env(),
        timeout=600,
    )
    assert feedback.returncode == 0, feedback.stdout + feedback.stderr
    # What formgrader shows: the autograded notebook as nbconvert renders it (both HTML templates).
    from nbconvert import HTMLExporter

    for student in ("mallory", "trudy"):
        page = course_dir / f"feedback/{student}/a1/a1.html"
        assert "Here is my work." in page.read_text()  # the student's prose is still there
        assert_no_student_script(chromium_dom(page), f"{student}'s feedback")
        graded = nbformat.read(course_dir / f"autograded/{student}/a1/a1.ipynb", as_version=4)
        for template in ("classic", "lab"):
            body, _ = HTMLExporter(template_name=template).from_notebook_node(graded)
            (tmp_path / f"{template}.html").write_text(body)
            assert_no_student_script(
                chromium_dom(tmp_path / f"{template}.html"), f"{student}'s autograded notebook ({template})"
            )


def test_the_payloads_do_run_when_nothing_sanitises_them(chromium, tmp_path):
    # The check above can fail: rendered as it is, the hostile notebook runs its scripts.
    from nbconvert import HTMLExporter

    nb = nbformat.read(HOSTILE / "script_in_markdown.ipynb", as_version=4)
    body, _ = HTMLExporter(template_name="classic").from_notebook_node(nb)
    (tmp_path / "raw.html").write_text(body)
    with pytest.raises(AssertionError, match="a student's script ran"):
        assert_no_student_script(chromium_dom(tmp_path / "raw.html"), "unsanitised")


# -- item 5: --zip ------------------------------------------------------------------------------
def test_zip_cannot_submit_as_another_student_nor_plant_a_setuid_file(toy_build, course_dir, tmp_path):
    alice, mallory = a1_notebook(course_dir), a1_notebook(course_dir, {"double": "def double(x):\n    return x\n"})
    archive = H.archive(tmp_path / "a1_download.zip", {"alice_a1.ipynb": alice, "bob_a1.ipynb": alice})
    with zipfile.ZipFile(archive, "a") as zf:  # mallory's upload: a zip filing her notebook as alice's, and setuid
        inner = tmp_path / "upload.zip"
        with zipfile.ZipFile(inner, "w") as upload:
            upload.writestr("alice/a1.ipynb", mallory)
            upload.writestr("bob_a1.ipynb", mallory)
        zf.write(inner, "mallory_upload.zip")
        info = zipfile.ZipInfo("mallory_a1.ipynb")
        info.create_system, info.external_attr = 3, 0o104755 << 16
        zf.writestr(info, mallory)
    proc = autograde(toy_build, course_dir, "--zip", str(archive))
    assert proc.returncode == 4, proc.stdout + proc.stderr  # all graded; an entry was left out (issue 27)
    assert totals(course_dir) == pytest.approx({"alice": FULL, "bob": FULL, "mallory": 2 / 3}, abs=1e-5)
    out = " ".join(proc.stdout.split())
    assert "not collected: a1_download.zip: mallory_upload.zip: an archive inside the archive" in out, out
    for path in [*course_dir.joinpath("submitted").rglob("*"), *course_dir.joinpath("downloaded").rglob("*")]:
        mode = path.lstat().st_mode
        assert not path.is_symlink() and not mode & (stat.S_ISUID | stat.S_ISGID), path
        assert stat.S_IMODE(mode) == (0o755 if path.is_dir() else 0o644), (path, oct(mode))


def test_several_assignments_in_one_command_share_their_grading_processes(toy_build, tmp_path):
    """`grader autograde a1 a2`: one set of grading processes for both, none of a student's
    processes outliving grading, and each assignment's grades as a run of it alone gives."""
    course, course_dir = toy_build[0], tmp_path / "nb"
    shutil.copytree(toy_build[1], course_dir)
    built = run_grader(
        "build", "--course", str(course), "--course-dir", str(course_dir), "--assignment", "a2", cwd=tmp_path
    )
    assert built.returncode == 0, built.stdout + built.stderr
    marker = tmp_path / "acted_later"
    child = f"import time; time.sleep(3); open({str(marker)!r}, 'w').write('late')"
    lingering = (
        "import subprocess, sys\n"
        f"subprocess.Popen([sys.executable, '-c', {child!r}], start_new_session=True)\n" + NOTEBOOK_CELLS["add"]
    )
    hand_in(course_dir, "alice", a1_notebook(course_dir))
    hand_in(course_dir, "linger", a1_notebook(course_dir, dict(NOTEBOOK_CELLS, add=lingering)))
    a2 = nbformat.read(course_dir / "release/a2/a2.ipynb", as_version=4)
    for cell in a2.cells:
        if cell.metadata.get("nbgrader", {}).get("grade_id") == "scale" and cell.metadata["nbgrader"].get("solution"):
            cell.source = (
                "import numpy as np\n\n\ndef scale(x, factor):\n    return np.asarray(x, dtype=float) * factor\n"
            )
    for student in ("alice", "linger"):
        (course_dir / "submitted" / student / "a2").mkdir(parents=True)
        nbformat.write(a2, course_dir / "submitted" / student / "a2" / "a2.ipynb")
    started = time.monotonic()
    proc = run_grader(
        "autograde",
        "a1",
        "a2",
        "--course",
        str(course),
        "--course-dir",
        str(course_dir),
        "--no-sandbox",
        "--jobs",
        "1",
        cwd=tmp_path,
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "a1: 2 submission(s)" in proc.stdout and "a2: 2 submission(s)" in proc.stdout, proc.stdout
    logs = sorted(p.name for p in (course_dir / RESULTS_DIR / "logs").glob("worker-*.log"))
    assert logs == ["worker-0.log"], f"one grading process for both assignments, not {logs}"
    assert totals(course_dir) == {"alice": FULL, "linger": FULL}
    assert {r.student: r.total for r in results_store(course_dir, "a2").all_records()} == {"alice": 1.0, "linger": 1.0}
    assert_gradebook_holds_the_trusted_grades(course_dir, ["alice", "linger"])
    time.sleep(max(0.0, 4.5 - (time.monotonic() - started)))
    assert not marker.exists(), "a student's detached process outlived grading"
