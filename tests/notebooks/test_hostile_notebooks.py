"""Hostile notebooks and files on the nbgrader path, piece by piece: extraction, links, the leak
check, class discovery and fingerprints. Each bad submission costs its own grade only.

The notebooks are in ``tests/data/hostile/notebooks/`` (the toy course's assignment a1:
``double`` and ``add``); whole autograde runs are in ``tests/autograde/test_hostile_e2e.py``.
"""

from __future__ import annotations

import json
import os
import signal
from pathlib import Path

import nbformat
import pytest

from grader.classgrade.run import discover_submissions
from grader.core.course import load_course
from grader.engine.parcel import Parcel
from grader.engine.store import SAFE_ID
from grader.lms import name_id
from grader.notebooks.extract import (
    GENERAL,
    MAX_JSON_CONTAINERS,
    MAX_NOTES,
    extract_submission,
    notebooks_of,
    read_notebook,
)
from grader.notebooks.segments import assignment_modules
from grader.untrusted import MAX_SUBMISSION_BYTES
from tests.helpers import ROOT
from tests.toy_course import make_toy_course, solution_source

HOSTILE = ROOT / "tests" / "data" / "hostile" / "notebooks"


@pytest.fixture(scope="module")
def toy(tmp_path_factory):
    course = load_course(make_toy_course(tmp_path_factory.mktemp("toy") / "course"))
    assignment = course.assignment("a1")
    return course, assignment, assignment_modules(course, assignment)


def extract_file(toy, path: Path, dest: Path, folder: Path | None = None):
    course, assignment, modules = toy
    folder = folder or path.parent
    notebooks, problems = notebooks_of(folder, [path.name])
    return extract_submission(course, assignment, notebooks, problems, folder, dest, modules=modules)


def submitted(tmp_path: Path, source: Path | str, name: str = "a1.ipynb") -> Path:
    """``source`` (a hostile notebook, or JSON text) as submitted/<student>/a1/a1.ipynb."""
    folder = tmp_path / "submitted" / "mallory" / "a1"
    folder.mkdir(parents=True)
    text = source.read_text() if isinstance(source, Path) else source
    (folder / name).write_text(text)
    return folder / name


def module_text(ex, module: str = "toy") -> str:
    return (ex.directory / f"{module}.py").read_text()


def all_notes(ex) -> str:
    return "\n".join(n for notes in ex.notes.values() for n in notes)


# -- item 4: malformed notebooks cost their own cells, never the class ----------------------
def test_a_cell_that_is_a_string_is_left_out_with_a_note(toy, tmp_path):
    ex = extract_file(toy, submitted(tmp_path, HOSTILE / "string_cell.ipynb"), tmp_path / "out")
    text = module_text(ex)
    assert "return 2.0 * np.asarray" in text and "return float(a) + float(b)" in text  # both cells graded
    assert "cell 3 is not a notebook cell (it is a string)" in all_notes(ex)
    assert ex.quarantined  # nbgrader never reads it; the course grader records it


def test_a_source_that_is_not_text_costs_that_cell_only(toy, tmp_path):
    ex = extract_file(toy, submitted(tmp_path, HOSTILE / "integer_source.ipynb"), tmp_path / "out")
    text = module_text(ex)
    assert "return 2.0 * np.asarray" in text and "float(a) + float(b)" not in text
    assert any("source is a number, not text" in n for n in ex.notes["add"]), ex.notes
    assert "cell 4" in all_notes(ex)  # the markdown cell whose source list holds a number


def test_a_solution_cell_over_the_size_limit_is_left_out(toy, tmp_path):
    nb = json.loads((HOSTILE / "string_cell.ipynb").read_text())
    nb["cells"] = [c for c in nb["cells"] if isinstance(c, dict)]
    nb["cells"][2]["source"] += "# " + "x" * (21 * 2**20) + "\n"  # add: 21 MB
    ex = extract_file(toy, submitted(tmp_path, json.dumps(nb)), tmp_path / "out")
    assert (ex.directory / "toy.py").stat().st_size < 100_000
    assert any("more than" in n and "left out" in n for n in ex.notes["add"]), ex.notes
    assert "return 2.0 * np.asarray" in module_text(ex)


def test_a_notebook_over_the_size_limit_is_not_read(toy, tmp_path):
    path = submitted(tmp_path, HOSTILE / "string_cell.ipynb")
    with open(path, "r+b") as handle:
        handle.truncate(65 * 2**20)  # sparse: nothing is written, nothing must be read
    ex = extract_file(toy, path, tmp_path / "out")
    assert not ex.readable and "65.0 MB, more than the 64 MB allowed" in all_notes(ex)


def test_a_lone_surrogate_in_a_cell_is_text_not_a_crash(toy, tmp_path):
    nb = json.loads((HOSTILE / "string_cell.ipynb").read_text())
    nb["cells"] = [c for c in nb["cells"] if isinstance(c, dict)]
    nb["cells"][2]["source"] += "# caf\udce9\n"  # valid JSON; not encodable as UTF-8
    nb["metadata"]["kernelspec"]["display_name"] = "\udce9"
    ex = extract_file(toy, submitted(tmp_path, json.dumps(nb)), tmp_path / "out")
    assert "# caf\ufffd" in module_text(ex) and "float(a) + float(b)" in module_text(ex)


def test_a_lone_surrogate_in_the_metadata_is_text_where_the_notebook_is_written():
    from grader.autograde.sanitize import sanitize_notebook

    nb = nbformat.from_dict(json.loads((HOSTILE / "string_cell.ipynb").read_text()))
    nb.metadata = {
        "kernelspec": {"name": "py\udce9", "display_name": "Python"},
        "language_info": {"name": "python\udce9"},
        "other": {"x": 1},
    }
    clean = sanitize_notebook(nb)
    assert set(clean.metadata) == {"kernelspec", "language_info"}
    assert clean.metadata.kernelspec.name.startswith("py\ufffd") and "\udce9" not in json.dumps(clean.metadata)
    nbformat.writes(clean).encode("utf-8")  # what the recorder writes: no UnicodeEncodeError


def test_deeply_nested_json_is_unreadable_not_a_crash(toy, tmp_path):
    nb = json.loads((HOSTILE / "string_cell.ipynb").read_text())
    nb["metadata"]["deep"] = "@@DEEP@@"
    text = json.dumps(nb).replace('"@@DEEP@@"', "[" * 200_000 + "]" * 200_000)
    ex = extract_file(toy, submitted(tmp_path, text), tmp_path / "out")
    assert not ex.readable and "nested" in all_notes(ex)


def test_big_outputs_are_read_and_a_flood_of_containers_is_refused_before_parsing(toy, tmp_path):
    nb = json.loads((HOSTILE / "string_cell.ipynb").read_text())
    nb["metadata"]["plot"] = "@@PLOT@@"
    plot = json.dumps(nb).replace('"@@PLOT@@"', "[" + ",".join(["[1, 2]"] * 300_000) + "]")
    assert extract_file(toy, submitted(tmp_path / "plot", plot), tmp_path / "out_plot").readable
    flood = json.dumps(nb).replace('"@@PLOT@@"', "[" + ",".join(["[]"] * (MAX_JSON_CONTAINERS + 1)) + "]")
    ex = extract_file(toy, submitted(tmp_path / "flood", flood), tmp_path / "out_flood")
    assert not ex.readable and "clear the outputs" in all_notes(ex)


def test_a_notebook_that_is_a_named_pipe_is_refused_without_blocking(toy, tmp_path):
    folder = tmp_path / "submitted" / "mallory" / "a1"
    folder.mkdir(parents=True)
    os.mkfifo(folder / "a1.ipynb")

    def blocked(signum, frame):
        raise TimeoutError("reading the submission blocked on a named pipe")

    previous = signal.signal(signal.SIGALRM, blocked)
    signal.alarm(20)
    try:
        ex = extract_file(toy, folder / "a1.ipynb", tmp_path / "out")
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, previous)
    assert not ex.readable and "a named pipe" in all_notes(ex)


@pytest.mark.parametrize("claimed", [3, True, "4", None])
def test_a_notebook_with_cells_is_read_as_version_4_whatever_it_claims(toy, tmp_path, claimed):
    nb = json.loads((HOSTILE / "string_cell.ipynb").read_text())
    nb["nbformat"] = claimed  # converting a v4 notebook "from v3" would leave nothing of it
    ex = extract_file(toy, submitted(tmp_path, json.dumps(nb)), tmp_path / "out")
    assert "return 2.0 * np.asarray" in module_text(ex) and "float(a) + float(b)" in module_text(ex)


def test_an_old_notebook_is_converted(toy, tmp_path):
    from nbformat import v3

    cell = v3.new_code_cell(input="def add(a, b):\n    return float(a) + float(b)\n")
    cell.metadata["nbgrader"] = {"grade_id": "add", "solution": True, "grade": False}
    old = v3.new_notebook(worksheets=[v3.new_worksheet(cells=[cell])])
    ex = extract_file(toy, submitted(tmp_path, v3.writes_json(old)), tmp_path / "out")
    assert "float(a) + float(b)" in module_text(ex)


def test_read_notebook_says_why_a_file_is_not_a_notebook(tmp_path):
    (tmp_path / "list.ipynb").write_text("[1, 2]")
    nb, problem = read_notebook(tmp_path / "list.ipynb")
    assert nb is None and "not a notebook" in problem


# -- item 3: nbgrader metadata is a plain identifier, or it is not used ------------------------
@pytest.mark.parametrize("name", ["log_injection", "log_injection_unknown_student"])
def test_a_grade_id_that_is_not_a_plain_name_is_refused(toy, tmp_path, name):
    ex = extract_file(toy, submitted(tmp_path, HOSTILE / f"{name}.ipynb"), tmp_path / "out")
    notes = all_notes(ex)
    assert "grade id" in notes and "\n" not in "".join(ex.notes[GENERAL])
    assert "There was an error processing" not in notes  # never repeated: it is data
    assert ex.quarantined
    assert "return 2.0 * np.asarray" in module_text(ex) and "float(a) + float(b)" in module_text(ex)


def test_metadata_of_the_wrong_type_is_not_used(toy, tmp_path):
    ex = extract_file(toy, submitted(tmp_path, HOSTILE / "odd_metadata.ipynb"), tmp_path / "out")
    text = module_text(ex)
    # A "solution": "yes" duplicate of double must not replace the real cell.
    assert "return 2.0 * np.asarray" in text and "return 0" not in text
    assert ex.quarantined and len(ex.notes[GENERAL]) >= 5, ex.notes


def test_check_notebook_keeps_a_clean_notebook_as_it_is(toy):
    from grader.build.notebook import build_notebook
    from grader.notebooks.extract import check_notebook

    course, assignment, _ = toy

    nb = build_notebook(course, assignment)
    checked, notes = check_notebook(json.loads(nbformat.writes(nb)))
    assert notes == []
    assert [c.source for c in checked.cells] == [c.source for c in nb.cells]
    assert [c.metadata.get("nbgrader") for c in checked.cells] == [c.metadata.get("nbgrader") for c in nb.cells]


# -- item 5: links are never followed --------------------------------------------------------
def test_a_lab_module_that_is_a_link_is_not_copied(tmp_path):
    course = load_course(ROOT, check_files=False)
    lab = next((a for a in course.assignments if any(e.kind == "lab" for e in a.exercises)), None)
    if lab is None:
        pytest.skip("no lab in this course")
    folder = tmp_path / "submitted" / "mallory" / lab.id
    folder.mkdir(parents=True)
    (folder / "gae.py").symlink_to(course.solutions_dir / "gae.py")
    notebooks, problems = notebooks_of(folder, [])
    ex = extract_submission(course, lab, notebooks, problems, folder, tmp_path / "out", student_modules=["gae.py"])
    assert not (tmp_path / "out" / "gae.py").exists()
    assert "gae.py is a symbolic link" in all_notes(ex) and ex.quarantined


def test_a_notebook_that_is_a_link_is_not_read(toy, tmp_path):
    secret = tmp_path / "source.ipynb"
    secret.write_text((HOSTILE / "log_injection.ipynb").read_text().replace("x = 1", "SECRET = 1"))
    folder = tmp_path / "submitted" / "mallory" / "a1"
    folder.mkdir(parents=True)
    (folder / "a1.ipynb").symlink_to(secret)
    ex = extract_file(toy, folder / "a1.ipynb", tmp_path / "out")
    assert not ex.readable and "a1.ipynb is a symbolic link" in all_notes(ex)
    assert "SECRET" not in "".join(p.read_text() for p in ex.directory.glob("*.py"))


def test_thousands_of_links_are_counted_not_listed(toy, tmp_path):
    # Every exercise's report repeats the general notes: they must stay short.
    folder = tmp_path / "submitted" / "mallory" / "a1"
    folder.mkdir(parents=True)
    (folder / "a1.ipynb").write_text((HOSTILE / "log_injection.ipynb").read_text())
    for number in range(500):
        (folder / f"link{number:03}").symlink_to("/etc/hostname")
    ex = extract_file(toy, folder / "a1.ipynb", tmp_path / "out")
    general = ex.notes[GENERAL]
    assert ex.quarantined and len(general) == MAX_NOTES + 1
    assert general[-1] == f"... and {500 - MAX_NOTES + 1} more like these", general[-3:]


def test_a_submission_too_large_to_copy_is_quarantined_and_still_graded(toy, tmp_path):
    # A sparse file costs nothing to hand in, and its whole apparent size to copy into autograded/.
    folder = tmp_path / "submitted" / "mallory" / "a1"
    folder.mkdir(parents=True)
    (folder / "a1.ipynb").write_text((HOSTILE / "log_injection.ipynb").read_text())
    with open(folder / "data.bin", "wb") as handle:
        handle.truncate(MAX_SUBMISSION_BYTES + 1)
    ex = extract_file(toy, folder / "a1.ipynb", tmp_path / "out")
    assert ex.quarantined and ex.readable
    assert f"the submission holds more than {MAX_SUBMISSION_BYTES >> 20} MB of files" in all_notes(ex)


def test_a_submission_folder_that_is_a_link_is_not_read(toy, tmp_path):
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    (elsewhere / "a1.ipynb").write_text((HOSTILE / "log_injection.ipynb").read_text())
    (tmp_path / "submitted" / "mallory").mkdir(parents=True)
    (tmp_path / "submitted" / "mallory" / "a1").symlink_to(elsewhere)
    ex = extract_file(toy, tmp_path / "submitted" / "mallory" / "a1" / "a1.ipynb", tmp_path / "out")
    assert not ex.readable and "symbolic link" in all_notes(ex)


def test_a_class_entry_that_is_a_link_is_not_graded(tmp_path):
    solutions = tmp_path / "solutions"
    solutions.mkdir()
    (solutions / "toy.py").write_text(solution_source())
    submissions = tmp_path / "submissions"
    submissions.mkdir()
    (submissions / "alice.py").write_text(solution_source())
    (submissions / "mallory").symlink_to(solutions)
    (submissions / "trudy.py").symlink_to(solutions / "toy.py")
    skipped: dict[str, str] = {}
    found = discover_submissions(submissions, skipped=skipped)
    assert list(found) == ["alice"]
    assert "symbolic link" in skipped["mallory"] and "symbolic link" in skipped["trudy.py"]


def test_a_class_entry_with_a_name_that_is_no_id_is_a_student_under_a_printable_id(tmp_path):
    """Issue 27: a name that is not a usable id as it is (bytes that are not UTF-8, markup) is still a
    student, under the id grader.lms.name_id makes of it on every route; nothing is dropped."""
    submissions = tmp_path / "submissions"
    submissions.mkdir()
    (submissions / "alice.py").write_text(solution_source())
    (submissions / os.fsdecode(b"caf\xe9")).mkdir()
    (submissions / "[bold]eve").mkdir()
    skipped: dict[str, str] = {}
    found = discover_submissions(submissions, skipped=skipped)
    assert sorted(found) == sorted(["alice", name_id(os.fsdecode(b"caf\xe9")), name_id("[bold]eve")]) and not skipped
    assert all(SAFE_ID.match(student) and student.isprintable() for student in found)
    assert found[name_id("[bold]eve")] == submissions.resolve() / "[bold]eve"


def test_a_name_too_long_for_a_file_name_gets_an_id_that_fits(tmp_path):
    # A 250-character id passed the id check and then crashed the class run when its result was saved:
    # such a name is a student under a shortened id (grader.lms.name_id), which fits a file name.
    (tmp_path / "alice.py").write_text(solution_source())
    (tmp_path / ("x" * 250 + ".py")).write_text(solution_source())
    skipped: dict[str, str] = {}
    found = discover_submissions(tmp_path, skipped)
    assert sorted(found) == ["alice", name_id("x" * 250)] and not skipped
    assert len(name_id("x" * 250)) <= 100 and SAFE_ID.match(name_id("x" * 250))


def test_a_single_file_submission_is_bounded_like_a_folder(toy, tmp_path):
    from grader.core.staging import stage_submission
    from grader.errors import GraderError

    big = tmp_path / "mallory.py"
    big.write_text("x = 1\n" + "#" * (21 * 2**20))
    with pytest.raises(GraderError, match="more than 20 MB"):
        stage_submission(toy[0], big, tmp_path / "staged")


def test_the_fingerprint_takes_file_names_that_are_not_utf8(tmp_path):
    folder = tmp_path / "mallory"
    folder.mkdir()
    (folder / "toy.py").write_text(solution_source())
    before = Parcel.read("mallory", folder).fingerprint
    (folder / os.fsdecode(b"caf\xe9.py")).write_text("x = 1\n")
    after = Parcel.read("mallory", folder).fingerprint
    assert before != after and after == Parcel.read("mallory", folder).fingerprint
