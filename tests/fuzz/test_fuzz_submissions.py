"""The fuzzing harness: hostile notebooks, folders and archives never stop the class.

Strategies (:mod:`tests.fuzz.strategies`) draw notebook JSON (cells that are not
cells, sources that are not text, huge and deep values, odd metadata, duplicate ids),
submission folders (non-UTF-8 and odd names, links at any depth, pipes, empty and
sparse 3 GB files, folders where files are expected) and LMS archives. Each case
asserts that the code finishes, that what the honest parts earn is unchanged, that
nothing is read through a link, and, on whole runs, that the gradebook holds exactly
the trusted grades.

Budget: CI runs about 300 cases (most in-process, cheap: extraction, staging,
fingerprints, the leak check, sanitising, zip collection; and a handful of whole
`grader autograde` and `grader grade-class` runs). A longer run::

    GRADER_FUZZ_EXAMPLES=2000 .venv/bin/python -m pytest tests/fuzz -q

draws that many cases per in-process test (and one whole run per 100), at random
instead of from the fixed derandomized sequence CI uses.
"""

from __future__ import annotations

import functools
import json
import os
import re
import shutil
import signal
import stat
import tempfile
from contextlib import contextmanager
from pathlib import Path

import nbformat
import pytest
from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import strategies as st

from grader.autograde.sanitize import sanitize_notebook
from grader.autograde.zipcollect import LmsDownload, collect_zip
from grader.build.leaks import student_lines
from grader.classgrade.run import discover_submissions
from grader.core.course import load_course
from grader.core.staging import stage_submission
from grader.engine.parcel import Parcel
from grader.engine.store import SAFE_ID
from grader.errors import GraderError
from grader.notebooks.extract import check_notebook, extract_submission, module_cells, notebooks_of, read_notebook
from grader.notebooks.segments import assignment_modules
from tests.fuzz.strategies import CANARY, FOLDER, NOTEBOOK_CELLS, notebook_text, write_folder, write_zip, zip_entries
from tests.helpers import run_grader
from tests.toy_course import a1_notebook, make_toy_course, shared_nbgrader_course, solution_source

LONG = int(os.environ.get("GRADER_FUZZ_EXAMPLES", "0"))


def budget(ci: int, whole_runs: bool = False) -> settings:
    examples = ci if not LONG else (max(ci, LONG // 100) if whole_runs else LONG)
    # A whole run takes seconds: a failing one is reported as drawn, not shrunk for half an hour.
    phases = [Phase.explicit, Phase.reuse, Phase.generate] if whole_runs else list(Phase)
    return settings(
        max_examples=examples,
        deadline=None,
        derandomize=not LONG,
        database=None if not LONG else settings.default.database,
        suppress_health_check=list(HealthCheck),
        phases=phases,
    )


@contextmanager
def within(seconds: int, what: str):
    """Fail (instead of hanging the suite) when ``what`` blocks, e.g. on a named pipe."""

    def expired(signum, frame):
        raise TimeoutError(f"{what} did not finish within {seconds} s")

    previous = signal.signal(signal.SIGALRM, expired)
    signal.alarm(seconds)
    try:
        yield
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, previous)


@pytest.fixture(scope="module")
def toy(tmp_path_factory):
    root = tmp_path_factory.mktemp("fuzz")
    course = load_course(make_toy_course(root / "course"))
    canary = root / "outside" / "solutions.py"
    canary.parent.mkdir()
    canary.write_text(f"# {CANARY}\ndef double(x):\n    return 2 * x\n")
    return course, course.assignment("a1"), assignment_modules(course, course.assignment("a1")), canary


def extracted_text(directory: Path) -> str:
    return "".join(p.read_text(errors="replace") for p in sorted(directory.rglob("*.py")) if p.is_file())


# -- notebooks (in-process) -------------------------------------------------------------------------
@functools.lru_cache(maxsize=None)
def exporter():
    """One HTML exporter for every example: building one loads its templates (~65 ms, the rendering ~4 ms)."""
    from nbconvert import HTMLExporter

    return HTMLExporter(template_name="basic")


def rendered(nb) -> str:
    body, _ = exporter().from_notebook_node(nb)
    return body


@budget(100)
@given(text=notebook_text())
def test_a_fuzzed_notebook_costs_only_its_own_cells(toy, text):
    course, assignment, modules, _ = toy
    with tempfile.TemporaryDirectory() as tmp, within(60, "extraction"):
        folder = Path(tmp) / "submitted" / "mallory" / "a1"
        folder.mkdir(parents=True)
        (folder / "a1.ipynb").write_text(text)
        notebooks, problems = notebooks_of(folder, ["a1.ipynb"])
        ex = extract_submission(course, assignment, notebooks, problems, folder, Path(tmp) / "out", modules=modules)
        for path in ex.directory.glob("*.py"):
            compile(path.read_text(), str(path), "exec")  # whatever the notebook, the modules are Python
        notes = [n for group in ex.notes.values() for n in group]
        assert all(n.isprintable() and len(n) < 1000 for n in notes), notes
        converted = any("old notebook format" in n for n in notes)
        if ex.readable and not converted:  # the honest cells are graded as they are
            cells = module_cells((ex.directory / "toy.py").read_text())
            assert (
                NOTEBOOK_CELLS["double"].strip() in cells["double"] and NOTEBOOK_CELLS["add"].strip() in cells["add"]
            ), ex.notes
            assert "double" not in ex.notes and "add" not in ex.notes
        # What nbconvert renders of it after sanitising (the autograde and feedback step) runs nothing.
        data, _ = read_notebook(folder / "a1.ipynb")
        if data is not None:
            try:
                raw = nbformat.from_dict(data)
            except RecursionError:
                raw = check_notebook(data)[0]
            if raw is not None:
                page = rendered(sanitize_notebook(raw))
                assert "<script" not in page and not re.search(r"<[^>]*\son[a-z]+\s*=", page, re.I)
                assert not re.search(r"""(href|src)\s*=\s*["']?\s*(javascript|vbscript|data:text)""", page, re.I)


# -- folders (in-process) ---------------------------------------------------------------------------
@budget(100)
@given(entries=FOLDER, notebook=st.booleans())
def test_a_fuzzed_submission_folder_is_read_without_links_pipes_or_unbounded_reads(toy, entries, notebook):
    course, assignment, modules, canary = toy
    with tempfile.TemporaryDirectory() as tmp, within(60, "reading the folder"):
        tmp = Path(tmp)
        folder = tmp / "submitted" / "mallory" / "a1"
        if notebook:
            folder.mkdir(parents=True)
            (folder / "a1.ipynb").write_text(
                json.dumps({"cells": [], "metadata": {}, "nbformat": 4, "nbformat_minor": 5})
            )
        write_folder(folder, entries, canary)
        has_odd = any(
            not (stat.S_ISREG(os.lstat(p).st_mode) or stat.S_ISDIR(os.lstat(p).st_mode)) for p in _walk(folder)
        )
        # The nbgrader path: extraction (a lab's modules included).
        notebooks, problems = notebooks_of(folder, ["a1.ipynb"])
        ex = extract_submission(
            course,
            assignment,
            notebooks,
            problems,
            folder,
            tmp / "out",
            modules=modules,
            student_modules=["toy.py", "other.py", "gae.py", "mod.py"],
        )
        assert CANARY not in extracted_text(ex.directory)
        assert ex.quarantined or not has_odd
        # The grade-class path: staging and fingerprints.
        try:
            staged = stage_submission(course, folder, tmp / "staged")
        except GraderError as exc:
            assert "MB of Python files" in str(exc)
        else:
            assert CANARY not in extracted_text(staged)
            assert not any(p.is_symlink() for p in staged.rglob("*"))
        try:
            fingerprint = Parcel.read("mallory", folder).fingerprint
        except GraderError as exc:  # too big, or unreadable: this student only
            assert "MB of Python files" in str(exc) or "cannot read" in str(exc)
        else:
            assert fingerprint == Parcel.read("mallory", folder).fingerprint
        # The leak check never takes a link for the student's own code.
        lines, links = student_lines(folder, tmp)
        assert not any(CANARY in line for line in lines)
        # Class discovery: the same entries at the top of a class, next to alice.
        klass = tmp / "class"
        write_folder(klass, entries, canary)
        (klass / "alice.py").write_text(solution_source())
        skipped: dict[str, str] = {}
        found = discover_submissions(klass, skipped)
        assert found["alice"] == klass.resolve() / "alice.py"
        assert not any(path.is_symlink() for path in found.values())
        assert all(SAFE_ID.match(student) for student in found)


def _walk(root: Path):
    for folder, dirs, files in os.walk(root):
        for name in dirs + files:
            yield Path(folder) / name


# -- archives (in-process) --------------------------------------------------------------------------
@pytest.mark.filterwarnings("ignore:Duplicate name")  # duplicates are part of the attack
@budget(80)
@given(entries=zip_entries())
def test_a_fuzzed_lms_archive_costs_only_its_bad_entries(toy, entries):
    honest = json.dumps({"cells": [], "metadata": {}, "nbformat": 4, "nbformat_minor": 5}).encode()
    with tempfile.TemporaryDirectory() as tmp:
        tmp = Path(tmp)
        course_dir = tmp / "course"
        course_dir.mkdir()
        archive = write_zip(tmp / "download.zip", entries, honest)
        before = sorted(os.listdir(tmp))
        got = collect_zip(course_dir, "a1", LmsDownload(archive), ["a1.ipynb"], ["gae.py"])
        assert (course_dir / "submitted/alice/a1/a1.ipynb").read_bytes() == honest
        assert sorted(os.listdir(tmp)) == before  # nothing written beside the course directory
        for path in _walk(course_dir):
            mode = path.lstat().st_mode
            assert stat.S_ISDIR(mode) or stat.S_ISREG(mode), path
            assert stat.S_IMODE(mode) == (0o755 if stat.S_ISDIR(mode) else 0o644), (path, oct(mode))
        assert all(SAFE_ID.match(student) for student in got.students)
        assert all(p.isprintable() for p in got.problems)


# -- whole runs -------------------------------------------------------------------------------------
@pytest.fixture(scope="module")
def toy_build(tmp_path_factory):
    return shared_nbgrader_course(tmp_path_factory)  # read only: each example copies the course directory


@pytest.mark.slow
@budget(2, whole_runs=True)
@given(notebooks=st.lists(notebook_text(), min_size=1, max_size=2), entries=FOLDER)
def test_a_fuzzed_class_is_autograded_and_recorded_whole(toy, toy_build, notebooks, entries):
    from grader.autograde.trusted import results_store
    from grader.notebooks.gradebook import course_gradebook, gradebook_scores

    canary = toy[3]
    with tempfile.TemporaryDirectory() as tmp:
        course_dir = Path(tmp) / "nb"
        shutil.copytree(toy_build[1], course_dir)
        honest = a1_notebook(course_dir)
        hands = {"alice": honest, "bob": honest, **{f"h{i}": text for i, text in enumerate(notebooks)}}
        for student, text in hands.items():
            folder = course_dir / "submitted" / student / "a1"
            folder.mkdir(parents=True)
            (folder / "a1.ipynb").write_text(text)
        folder = course_dir / "submitted" / "hfolder" / "a1"
        folder.mkdir(parents=True)
        (folder / "a1.ipynb").write_text(honest)
        write_folder(folder, entries, canary)
        proc = run_grader(
            "autograde", "a1", "--course", str(toy_build[0]), "--course-dir", str(course_dir), cwd=Path(tmp)
        )
        assert proc.returncode == 0, proc.stdout + proc.stderr
        assert "alice (rescued)" not in proc.stdout and "bob (rescued)" not in proc.stdout
        store = results_store(course_dir, "a1")
        records = {r.student: r for r in store.all_records()}
        assert sorted(records) == sorted([*hands, "hfolder"])
        assert records["alice"].total == records["bob"].total == 3.0
        recorded = gradebook_scores(course_gradebook(course_dir), "a1")
        for student, record in records.items():
            assert recorded[student] == pytest.approx({f: s for f, (s, _) in record.scores().items()}), student
        for path in (course_dir / "autograded").rglob("*"):
            assert not path.is_symlink() and (not path.is_file() or CANARY not in path.read_text(errors="replace"))


@pytest.mark.slow
@budget(2, whole_runs=True)
@given(top=FOLDER, inside=FOLDER)
def test_a_fuzzed_class_is_graded_by_grade_class_whole(toy, toy_build, top, inside):
    canary = toy[3]
    with tempfile.TemporaryDirectory() as tmp:
        klass = Path(tmp) / "class"
        write_folder(klass, top, canary)
        (klass / "alice.py").write_text(solution_source())
        bob = klass / "bob"
        if not os.path.lexists(bob):
            bob.mkdir()
        for module in ("toy", "other"):
            (bob / f"{module}.py").write_text(solution_source())
        write_folder(bob / "extra", inside, canary)
        proc = run_grader(
            "grade-class",
            str(klass),
            "--out",
            str(Path(tmp) / "out"),
            "--course",
            str(toy_build[0]),
            "-j",
            "1",
            cwd=Path(tmp),
        )
        assert proc.returncode in (0, 1) and "Traceback" not in proc.stderr, proc.stderr
        results = {p.stem: json.loads(p.read_text()) for p in (Path(tmp) / "out/results").glob("*.json")}
        assert results["alice"]["result"]["total"] == 4.0
        if "bob" in results:
            assert results["bob"]["result"]["total"] == 4.0
