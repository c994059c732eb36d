"""The Gradescope package, end to end without Gradescope.

`grader gradescope ps4b` writes autograder.zip; it is unzipped into a temporary root
laid out as Gradescope lays out /autograder (source/, submission/, results/).
run_autograder grades one submission before setup.sh has run (the Python on PATH),
then setup.sh's Python part builds a fresh virtual environment offline from what is
installed here (a wheelhouse repacked from this environment's packages; no index), and run_autograder
grades a correct, a wrong, a notebook and a hostile submission with it. Every
results.json is checked against the fields Gradescope documents
(tests/data/gradescope_results.schema.json) and against `grader grade` on the same code.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import time
import zipfile
from importlib import metadata
from pathlib import Path

import jsonschema
import nbformat
import pytest
import yaml

from grader.build.notebook import build_notebook
from grader.core.course import load_course
from grader.notebooks.segments import course_modules, student_segments
from tests.core.test_course import GOOD, error_of
from tests.helpers import ROOT, grade_json, mistake_cell, run_grader

COURSE = load_course(ROOT, check_files=False)
PS4B = COURSE.assignment("ps4b")
FUNCTIONS = [e.function for e in PS4B.exercises]
SCHEMA = json.loads((ROOT / "tests/data/gradescope_results.schema.json").read_text())
SOLUTION = {f: t for parts in course_modules(COURSE, set(FUNCTIONS)).values() for f, t in parts.exercises.items()}


def modules_with(dest: Path, **cells: str) -> Path:
    """exercises/ stubs of ps4b with ``cells`` appended (a later def replaces the stub's)."""
    dest.mkdir(parents=True, exist_ok=True)
    for module in PS4B.modules:
        text = (COURSE.exercises_dir / f"{module}.py").read_text()
        text += "".join(
            f"\n\n{cells[e.function]}" for e in PS4B.exercises if e.module == module and e.function in cells
        )
        (dest / f"{module}.py").write_text(text)
    return dest


def check_document(doc: dict) -> None:
    """Valid for Gradescope, and carrying everything the package promises."""
    jsonschema.validate(doc, SCHEMA)
    assert {"score", "execution_time", "output", "stdout_visibility", "tests"} <= set(doc)
    assert doc["output_format"] == doc["test_output_format"] == doc["test_name_format"] == "text"
    assert [t["name"] for t in doc["tests"]] == [f"ps4b: {f}" for f in FUNCTIONS]
    for test in doc["tests"]:
        assert {"name", "score", "max_score", "output", "visibility"} <= set(test)
        assert test["visibility"] == COURSE.gradescope["visibility"] == "after_published"
        assert 0 <= test["score"] <= test["max_score"]
    assert doc["score"] == pytest.approx(sum(t["score"] for t in doc["tests"]))


@pytest.fixture(scope="module")
def package(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("package") / "autograder.zip"
    proc = run_grader("gradescope", "ps4b", "-o", str(out))
    assert proc.returncode == 0, proc.stdout + proc.stderr
    return out


@pytest.fixture(scope="module")
def root(package, tmp_path_factory) -> Path:
    root = tmp_path_factory.mktemp("gradescope") / "autograder"
    (root / "source").mkdir(parents=True)
    with zipfile.ZipFile(package) as archive:
        archive.extractall(root / "source")
    for script in ("setup.sh", "run_autograder"):  # zipfile does not restore modes
        (root / "source" / script).chmod(0o755)
    return root


def wheelhouse(requirements: list[str], dest: Path) -> Path:
    """Wheels of the installed distributions ``requirements`` pins, repacked from their installed files
    (the tags their WHEEL file records), so that pip installs them offline."""
    dest.mkdir(parents=True, exist_ok=True)
    for pin in requirements:
        dist = metadata.distribution(pin.split("==")[0])
        wheel = next(f for f in dist.files if f.name == "WHEEL" and f.parent.name.endswith(".dist-info"))
        tags = [
            line.split(":", 1)[1].strip().split("-")
            for line in wheel.read_text().splitlines()
            if line.startswith("Tag:")
        ]
        tag = "-".join(".".join(dict.fromkeys(t[i] for t in tags)) for i in range(3))  # py2.py3-none-any
        name = wheel.parent.name[: -len(".dist-info")]  # name_version, as the wheel's file name needs
        with zipfile.ZipFile(dest / f"{name}-{tag}.whl", "w", zipfile.ZIP_STORED) as archive:
            for entry in dist.files:
                if not entry.parts[0] == ".." and entry.locate().is_file() and "__pycache__" not in entry.parts:
                    archive.write(entry.locate(), entry.as_posix())
    return dest


def environment(root: Path, wheels: Path | None = None) -> dict:
    # The Python on PATH is this one; setup.sh's pip takes the wheelhouse and never asks an index.
    env = dict(
        os.environ,
        GRADESCOPE_ROOT=str(root),
        PIP_NO_INDEX="1",
        PIP_NO_COMPILE="1",
        PATH=os.pathsep.join([str(Path(sys.executable).parent), os.environ.get("PATH", "")]),
    )
    env.pop("PYTHONPATH", None)
    if wheels is not None:
        env["PIP_FIND_LINKS"] = str(wheels)
    return env


def autograde(root: Path, fill, refused_ok: bool = False, **env: str) -> tuple[dict | None, str]:
    """Run run_autograder on the submission ``fill(folder)`` makes; (results.json, stdout).

    ``refused_ok``: the grader may refuse to grade (no results.json; (None, its output)).
    """
    for folder in ("submission", "results"):
        shutil.rmtree(root / folder, ignore_errors=True)
        (root / folder).mkdir()
    fill(root / "submission")
    proc = subprocess.run(
        ["bash", str(root / "source/run_autograder")],
        capture_output=True,
        text=True,
        timeout=600,
        env=dict(environment(root), **env),
        cwd=root,
    )
    if refused_ok and proc.returncode != 0 and "refusing to grade" in proc.stdout + proc.stderr:
        assert not (root / "results/results.json").exists()
        return None, proc.stdout + proc.stderr
    assert proc.returncode == 0, proc.stdout + proc.stderr
    doc = json.loads((root / "results/results.json").read_text())
    check_document(doc)
    return doc, proc.stdout


@pytest.fixture(scope="module")
def graded(root, tmp_path_factory):
    """Four submissions; the first before setup.sh, the others in the environment it made."""
    work = tmp_path_factory.mktemp("submissions")
    out = {
        "before_setup": autograde(
            root, lambda s: [shutil.copy(COURSE.solutions_dir / f"{m}.py", s) for m in PS4B.modules]
        )
    }
    wheels = wheelhouse((root / "source/requirements.txt").read_text().split(), work / "wheels")
    setup = subprocess.run(
        ["bash", str(root / "source/setup.sh"), "--python-only"],
        capture_output=True,
        text=True,
        timeout=600,
        env=environment(root, wheels),
        cwd=root / "source",
    )
    assert setup.returncode == 0, setup.stdout + setup.stderr
    assert (root / "venv/bin/python").exists()
    out["correct"] = autograde(root, lambda s: modules_with(s, **SOLUTION))
    wrong = dict(SOLUTION, gae_advantages=mistake_cell("gae_advantages", "ignores_lambda"))
    out["wrong"] = autograde(root, lambda s: modules_with(s / "my work" / "exercises", **wrong))

    notebook_cells = dict(
        SOLUTION,
        ppo_clipped_terms=student_segments(COURSE)["ppo_clipped_terms"],
        ppo_diagnostics=mistake_cell("ppo_diagnostics", "k1_kl"),
    )

    def notebook(folder: Path) -> None:
        nb = build_notebook(COURSE, PS4B)
        for cell in nb.cells:
            meta = cell.metadata.get("nbgrader", {})
            if meta.get("solution") and meta.get("grade_id") in notebook_cells:
                cell.source = notebook_cells[meta["grade_id"]]
        (folder / "ps4b (2).ipynb").write_text(nbformat.writes(nb))

    out["notebook"] = autograde(root, notebook)

    def stubs_beside_a_complete_notebook(folder: Path) -> None:
        for module in PS4B.modules:
            shutil.copy(COURSE.exercises_dir / f"{module}.py", folder)
        nb = build_notebook(COURSE, PS4B)  # the reference in every solution cell
        (folder / "ps4b.ipynb").write_text(nbformat.writes(nb))

    out["stubs_and_notebook"] = autograde(root, stubs_beside_a_complete_notebook)
    marker = work / "acted"
    # The honest part of the hostile upload: a correct ppo_clipped_terms and a wrong ppo_diagnostics.
    honest = dict(
        ppo_clipped_terms=SOLUTION["ppo_clipped_terms"], ppo_diagnostics=mistake_cell("ppo_diagnostics", "k1_kl")
    )
    attack = f"""
import json, subprocess, sys
try:  # claim full marks, now and again after grading ended
    open({str(root / "results/results.json")!r}, "w").write(json.dumps({{"score": 999}}))
    subprocess.Popen([sys.executable, "-c", "import time, json; time.sleep(1); "
                      "open({str(root / "results/results.json")!r}, 'w').write(json.dumps({{'score': 999}})); "
                      "open({str(marker)!r}, 'w').write('acted')"], start_new_session=True)
except OSError:
    pass
print('{{"score": 999}}')
"""

    def hostile(folder: Path) -> None:
        # gae.py is a link to the reference solution; ppo_objective.py attacks on import.
        (folder / "gae.py").symlink_to(root / "source/course/solutions/gae.py")
        modules_with(work / "hostile", **honest)
        text = (work / "hostile/ppo_objective.py").read_text()
        (folder / "ppo_objective.py").write_text(attack + text)
        (folder / "<script>alert(1)<script>\nname.py").write_text("raise SystemExit(3)\n")

    # Where Gradescope's container forbids bubblewrap, resource limits, the reaper and the last
    # word on results.json must hold on their own.
    # As root, the student's code runs as a user id of its own under the seccomp filter, or
    # nothing is graded (this machine's Python may be readable by root only).
    out["unsandboxed"] = autograde(root, hostile, refused_ok=True, GRADER_NO_BWRAP="1")
    time.sleep(2)  # past the moment the detached child would act
    results = root / "results/results.json"
    out["after_unsandboxed"] = json.loads(results.read_text()) if results.exists() else None
    out["hostile"] = autograde(root, hostile)
    time.sleep(2)
    out["after_hostile"] = json.loads((root / "results/results.json").read_text())
    out["marker"] = marker
    out["expected"] = dict(
        zip(
            ["correct", "wrong", "notebook", "honest"],
            grade_json(
                modules_with(work / "e_correct", **SOLUTION),
                modules_with(work / "e_wrong", **wrong),
                modules_with(work / "e_notebook", **notebook_cells),
                modules_with(work / "e_honest", **honest),
                only=FUNCTIONS,
            ),
        )
    )
    return out


def test_a_complete_notebook_beats_stub_modules_uploaded_beside_it(graded):
    doc, log = graded["stubs_and_notebook"]
    assert doc["score"] == 12.0, doc
    gae = next(t for t in doc["tests"] if t["name"].endswith("gae_advantages"))
    assert (
        'graded from ps4b.ipynb, the cell under "Exercise 1: gae_advantages (5 points)", which implements it '
        "(gae.py has it unfinished" in gae["output"]
    )


def scores(doc: dict) -> dict[str, float]:
    return {t["name"].split(": ", 1)[1]: t["score"] for t in doc["tests"]}


def expected_scores(result: dict) -> dict[str, float]:
    return {f: result["functions"][f]["score"] for f in FUNCTIONS}


def test_runs_with_the_python_on_path_before_setup_and_in_the_venv_after(graded, root):
    doc, log = graded["before_setup"]
    assert doc["score"] == sum(e.points for e in PS4B.exercises)
    assert f"at {Path(sys.executable).parent}" in log
    assert f"at {root / 'venv/bin'}" in graded["correct"][1]


def test_correct_wrong_and_notebook_submissions_get_the_grades_of_grader_grade(graded):
    for name in ("correct", "wrong", "notebook"):
        doc, _ = graded[name]
        assert scores(doc) == pytest.approx(expected_scores(graded["expected"][name])), name
        assert doc["score"] == pytest.approx(graded["expected"][name]["total"]), name
    wrong = next(t for t in graded["wrong"][0]["tests"] if t["name"].endswith("gae_advantages"))
    assert "ignores gae_lambda" in wrong["output"] and wrong["score"] < wrong["max_score"]
    # The same diagnosis first, as `grader grade` gives it: the package carries the known mistakes.
    diagnosis = graded["expected"]["wrong"]["functions"]["gae_advantages"]["diagnosis"]
    first = next(line for line in wrong["output"].splitlines() if line.startswith("\u2717 "))
    assert diagnosis and first == f"\u2717 {diagnosis}", (diagnosis, wrong["output"])
    stub = next(t for t in graded["notebook"][0]["tests"] if t["name"].endswith("ppo_clipped_terms"))
    assert "is not implemented yet" in stub["output"] and stub["score"] == 0


@pytest.mark.parametrize("run", ["hostile", "unsandboxed"])
def test_a_hostile_submission_earns_what_its_honest_code_earns(graded, run):
    doc, log = graded[run]
    if doc is None:  # refused, and said why; the submission wrote nothing either
        assert run == "unsandboxed" and os.geteuid() == 0 and "refusing to grade" in log, log
        assert graded[f"after_{run}"] is None and not graded["marker"].exists()
        return
    assert doc == graded[f"after_{run}"], "results.json changed after grading"
    assert not graded["marker"].exists(), "a process the submission started outlived grading"
    got = scores(doc)
    assert got["gae_advantages"] == 0, "a link to the reference solution was followed"
    honest = expected_scores(graded["expected"]["honest"])
    assert {f: got[f] for f in FUNCTIONS[1:]} == pytest.approx({f: honest[f] for f in FUNCTIONS[1:]})
    assert 0 < doc["score"] < sum(e.points for e in PS4B.exercises)
    assert "gae.py is a link" in doc["output"]
    assert "999" not in json.dumps(doc)
    assert ("WITHOUT a sandbox" in log) == (run == "unsandboxed")


def test_the_package_holds_the_assignment_only(package):
    with zipfile.ZipFile(package) as archive:
        names = set(archive.namelist())
        course_files = {n for n in names if n.startswith("course/")}
        worked = yaml.safe_load(archive.read("course/autograder-tests/worked_examples.yaml"))
        reduced = yaml.safe_load(archive.read("course/course.yaml"))
        requirements = archive.read("requirements.txt").decode().split()
    assert {"setup.sh", "run_autograder", "requirements.txt", "grader-package.json", "grader/cli.py"} <= names
    assert {n for n in course_files if n.startswith("course/solutions/")} == {
        f"course/solutions/{m}.py" for m in PS4B.modules
    }
    assert {n for n in course_files if "/hidden/" in n} == {
        f"course/autograder-tests/hidden/test_{f}.py" for f in FUNCTIONS
    }
    assert not any("/visible/" in n for n in course_files)
    mistakes = {n.split("/")[3] for n in course_files if n.startswith("course/autograder-tests/mistakes/")}
    assert mistakes == set(FUNCTIONS)
    assert set(worked) <= set(FUNCTIONS)
    assert [a["id"] for a in reduced["assignments"]] == ["ps4b"]
    import numpy

    assert f"numpy=={numpy.__version__}" in requirements and all("==" in r for r in requirements)


def test_the_visibility_is_a_validated_course_setting(tmp_path):
    assert "gradescope.visibility: unknown visibility 'sometimes'" in error_of(
        tmp_path / "a", GOOD + "gradescope:\n  visibility: sometimes\n"
    )
    course = load_course(ROOT, check_files=False)
    from grader.core.results import SubmissionResult, score_function
    from grader.engine.record import GradeRecord
    from grader.feedback.gradescope import gradescope_results

    result = SubmissionResult(
        "x", {"gae_advantages": score_function(course, "gae_advantages", [], "not defined")}, elapsed=1.2
    )
    doc = gradescope_results(GradeRecord("x", "x", result), visibility="hidden")
    jsonschema.validate(doc, SCHEMA)
    assert doc["tests"][0]["visibility"] == doc["visibility"] == "hidden" and doc["execution_time"] == 2
