"""The student kit as `grader build` writes it: what each holds, what its checker installs and offers, and
that nothing of it needs what a kit does not have (issues 18 and 28). Installed and used on a student's
machine: tests/build/test_student_kit_installed.py."""

from __future__ import annotations

import ast
import json
import re
import shutil
import zipfile
from pathlib import Path

import pytest

import grader.edition
from grader import cli
from grader.build.kit import INSTRUCTOR_PACKAGES, kit_requirements, write_kits
from grader.build.leaks import check_leaks
from grader.core.course import KIT_MANIFEST, load_course
from grader.core.staging import course_provided_files, lab_modules, stage_submission
from tests.helpers import ROOT
from tests.notebooks.test_cell_isolation import COURSE


@pytest.fixture(scope="module")
def kits(tmp_path_factory):
    course_dir = tmp_path_factory.mktemp("course-build")
    write_kits(COURSE, course_dir)
    return course_dir / "kit"


def wheel_of(kit: Path) -> zipfile.ZipFile:
    return zipfile.ZipFile(next((kit / "checker").glob("*.whl")))


def kit_course(kits: Path, kit_id: str, dest: Path):
    """The course a kit's checker carries, unpacked."""
    with wheel_of(kits / kit_id) as wheel:
        for name in wheel.namelist():
            if name.startswith("rl_llm_m4_kit/course/"):
                wheel.extract(name, dest)
    return load_course(dest / "rl_llm_m4_kit" / "course")


def test_a_kit_holds_no_solution_and_no_hidden_test(kits, tmp_path):
    kit = kits / "ps4b"
    assert sorted(p.name for p in (kit / "exercises").iterdir()) == ["gae.py", "ppo_objective.py"]
    names = wheel_of(kit).namelist()
    assert "rl_llm_m4_kit/course/autograder-tests/visible/test_gae_advantages.py" in names
    assert not [n for n in names if "hidden" in n or "solutions" in n or "mistakes" in n or "worked_examples" in n]
    assert check_leaks(COURSE, kits.parent) == []
    # The leak check reads the kits: a solution copied into one is found.
    copy = tmp_path / "copy"
    shutil.copytree(kits.parent, copy)
    shutil.copy(COURSE.solutions_dir / "gae.py", copy / "kit" / "ps4b" / "exercises" / "gae.py")
    assert any(leak.kind == "solution line" and leak.path.endswith("gae.py") for leak in check_leaks(COURSE, copy))


def test_a_labs_kit_holds_the_modules_it_runs(kits):
    held = sorted(p.name for p in (kits / "lab4" / "exercises").iterdir())
    # The students' modules the lab's code and notebook import (stubs), and the course's code.
    assert held == [
        "cartpole.py",
        "gae.py",
        "group_baselines.py",
        "llm_sequence.py",
        "ppo_objective.py",
        "ppo_training.py",
        "response_tokens.py",
    ]
    readme = (kits / "lab4" / "README.txt").read_text(encoding="utf-8")
    assert "cartpole_ppo_lab: gae.py, ppo_objective.py" in readme
    assert "sequence_rloo_lab: group_baselines.py, response_tokens.py" in readme
    assert "grader modules PATH/ps4a.ipynb PATH/ps4b.ipynb PATH/ps4c.ipynb --out exercises/" in readme


@pytest.mark.parametrize("kit_id", [a.id for a in COURSE.assignments] + ["all"])
def test_a_readme_names_only_what_its_kit_holds(kits, kit_id):
    readme = (kits / kit_id / "README.txt").read_text(encoding="utf-8")
    wheel = next((kits / kit_id / "checker").glob("*.whl")).name
    assert f'pip install "checker/{wheel}[notebooks]"' in readme and f"pip install checker/{wheel}" in readme
    named = set(re.findall(r"(?<![\w/])([\w-]+\.(?:py|ipynb))\b", readme)) - {wheel}
    assert named, readme
    missing = [name for name in named if not (kits / kit_id / "exercises" / name).exists()]
    assert missing == [], (missing, readme)  # the problem sets' notebooks of other kits are PATH/...


def test_the_checker_requires_what_the_grader_does_and_offers_the_notebooks(kits):
    requires, notebooks = kit_requirements()
    assert {"nbformat", "threadpoolctl", "numpy", "pytest"} <= {re.split(r"[<>=!~ ]", r)[0] for r in requires}
    assert {"ipykernel", "jupyterlab", "matplotlib"} == {re.split(r"[<>=!~ ]", r)[0] for r in notebooks}
    with wheel_of(kits / "ps4b") as wheel:
        metadata = next(wheel.read(n).decode() for n in wheel.namelist() if n.endswith(".dist-info/METADATA"))
    assert "Provides-Extra: notebooks" in metadata
    assert {f"Requires-Dist: {r}" for r in requires} <= set(metadata.splitlines())
    assert {f'Requires-Dist: {r}; extra == "notebooks"' for r in notebooks} <= set(metadata.splitlines())


def test_the_checker_is_a_student_build(kits):
    with wheel_of(kits / "ps4b") as wheel:
        names = wheel.namelist()
        edition = wheel.read("grader/edition.py").decode()
    assert "STUDENT = True" in edition and "KIT = 'ps4b'" in edition
    assert not [n for n in names if n.split("/")[:2] in (["grader", p] for p in INSTRUCTOR_PACKAGES)]
    assert "grader/check/command.py" in names and "grader/notebooks/command.py" in names
    # What stays imports none of what is left out (the layers say so; this is the student's wheel).
    for name in (n for n in names if n.startswith("grader/") and n.endswith(".py")):
        tree = ast.parse(wheel_of(kits / "ps4b").read(name))
        imported = [
            node.module if isinstance(node, ast.ImportFrom) else alias.name
            for node in ast.walk(tree)
            if isinstance(node, (ast.Import, ast.ImportFrom))
            for alias in (node.names if isinstance(node, ast.Import) else [None])
        ]
        left_out = [m for m in imported if m and m.split(".")[:2] in (["grader", p] for p in INSTRUCTOR_PACKAGES)]
        assert left_out == [] or name == "grader/cli.py", (name, left_out)


def test_a_kits_course_knows_its_own_assignments_and_the_course_provided_files(kits, tmp_path):
    course = kit_course(kits, "lab4", tmp_path)
    manifest = json.loads((course.root / KIT_MANIFEST).read_text())
    assert manifest["kit"] == "lab4" and manifest["assignments"] == ["lab4"]
    # Its course.yaml also holds the problem sets whose modules the lab runs: `grader modules` writes them.
    assert [a.id for a in course.assignments] == ["ps4a", "ps4b", "ps4c", "lab4"]
    assert [p.as_posix() for p in course_provided_files(course)] == [
        "cartpole.py",
        "llm_sequence.py",
        "ppo_training.py",
    ]
    assert lab_modules(course, "cartpole_ppo_lab") == ("gae", "ppo_objective")
    # A student's gae.py is theirs: staging takes the course's code from the course, and theirs from them.
    work = tmp_path / "work"
    work.mkdir()
    shutil.copy(ROOT / "solutions" / "gae.py", work / "gae.py")
    (work / "ppo_training.py").write_text("raise SystemExit('not the course code')\n")
    staged = stage_submission(course, work, tmp_path / "staged")
    assert (staged / "gae.py").read_bytes() == (ROOT / "solutions" / "gae.py").read_bytes()
    assert (staged / "ppo_training.py").read_bytes() == (COURSE.exercises_dir / "ppo_training.py").read_bytes()


def test_the_visible_checks_never_read_a_reference_or_anything_hidden():
    """They run in a student kit, which has none: the course's own code (testing.course_code) only."""
    hidden = {"reference", "reference_module", "reference_record", "worked_example", "solutions_dir", "_course"}
    hidden |= {"hidden_test_file", "hidden_tests_dir", "written_file"}
    for path in sorted((ROOT / "autograder-tests" / "visible").glob("test_*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        used = {n.attr for n in ast.walk(tree) if isinstance(n, ast.Attribute)}
        used |= {n.id for n in ast.walk(tree) if isinstance(n, ast.Name)}
        used |= {a.name for n in ast.walk(tree) if isinstance(n, ast.ImportFrom) for a in n.names}
        assert not used & hidden, (path.name, used & hidden)
        assert "solutions" not in path.read_text(encoding="utf-8").split('"""', 2)[-1], path.name


# -- the command a kit installs -----------------------------------------------------------------
@pytest.fixture
def student_build(monkeypatch):
    monkeypatch.setattr(grader.edition, "STUDENT", True)


def test_a_student_build_offers_a_students_commands(student_build, capsys):
    parser = cli.build_parser()
    assert parser.commands == ["check", "modules", "help"]
    assert cli.main(["help"]) == 0
    out = capsys.readouterr().out
    assert "grader check" in out and "grader build" not in out and "autograde" not in out


@pytest.mark.parametrize("command", ["build", "autograde", "grade", "gradescope"])
def test_an_instructors_command_is_refused_with_a_sentence(student_build, capsys, command):
    assert cli.main([command, "--any", "option"]) == 2
    err = capsys.readouterr().err
    assert f"'{command}' is an instructor's command" in err and "check, modules, help" in err
    assert cli.main(["help", command]) == 2
    assert f"'{command}' is an instructor's command" in capsys.readouterr().err


def test_the_instructors_commands_are_the_full_graders_others():
    full = cli.build_parser(student=False).commands
    student = cli.build_parser(student=True).commands
    assert sorted(cli.INSTRUCTOR_COMMANDS) == sorted(set(full) - set(student))


def test_help_gives_a_commands_options(capsys):
    assert cli.main(["help", "check"]) == 0
    assert "--only FUNCTION" in capsys.readouterr().out
    assert cli.main(["help", "nonsense"]) == 2
    assert "no command 'nonsense'" in capsys.readouterr().err


# -- the labs' visible checks say why they fail -------------------------------------------------
def test_course_code_is_the_courses_own_and_says_when_it_cannot_be_loaded(monkeypatch):
    from grader import testing

    monkeypatch.setattr(testing.CONTEXT, "course", COURSE)
    assert testing.course_code("ppo_training").__file__ == str(COURSE.exercises_dir / "ppo_training.py")
    with pytest.raises(AssertionError, match=r"the course's gae\.py could not be loaded .*holds exercises"):
        testing.course_code("gae")  # a module of stubs is the students', not course code
    with pytest.raises(AssertionError, match=r"the course's cartpole2\.py could not be loaded .*reinstall"):
        testing.course_code("cartpole2")


@pytest.mark.slow
def test_a_labs_visible_check_names_the_students_error_and_its_line(tmp_path):
    from tests.helpers import run_grader

    work = tmp_path / "work"
    shutil.copytree(ROOT / "solutions", work)
    source = (work / "gae.py").read_text()
    body = "    ### BEGIN SOLUTION\n"
    assert body in source
    (work / "gae.py").write_text(source.replace(body, body + "    raise ValueError('my own check')\n", 1))
    line = (work / "gae.py").read_text().splitlines().index("    raise ValueError('my own check')") + 1
    proc = run_grader("check", str(work), "--only", "cartpole_ppo_lab")
    assert proc.returncode == 1, proc.stdout + proc.stderr
    said = " ".join(proc.stdout.split())
    assert f"cartpole_ppo_lab raised ValueError: my own check (at gae.py, line {line}, in gae_advantages)" in said


@pytest.mark.slow
def test_a_labs_visible_check_fails_a_wrong_gae_and_says_what_the_training_reached(tmp_path):
    from tests.helpers import run_grader

    work = tmp_path / "work"
    shutil.copytree(ROOT / "solutions", work)
    shutil.copy(
        ROOT / "tests" / "data" / "mutants" / "cartpole_ppo_lab" / "gae_bootstraps_terminal.py", work / "gae.py"
    )
    proc = run_grader("check", str(work), "--only", "cartpole_ppo_lab")
    assert proc.returncode == 1, proc.stdout + proc.stderr
    said = " ".join(proc.stdout.split())
    assert re.search(r"the greedy policy balances for \d+ steps on average, it should reach 475; its evaluations", said)
    assert "check gae_advantages (bootstrap only where not terminated" in said, said
