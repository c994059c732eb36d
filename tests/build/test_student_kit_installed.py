"""Every student kit works on a student's machine (issue 28).

``grader build`` writes the kits; each is unzipped into an empty folder outside the repository and used
as its README.txt says. The whole module's kit is installed into a fresh virtual environment with its
``[notebooks]`` extra (Jupyter, a kernel, matplotlib), from a wheelhouse in the grader's cache: the pip
cache fills it once (``pip download``), later runs install offline (``--no-index``). That environment is
shared: each per-assignment kit's checker goes into a folder of its own (``pip install --no-deps
--target``) and runs there with the same dependencies.

In every kit the visible checks pass on the reference code pasted into exercises/ (the labs' too: they
train with the kit's own copy of the course's code) and say "not implemented" (or "not answered yet")
on the stubs; the lab's notebook runs top to bottom in that environment with the reference modules,
its check cells included, and its PPO runs balance the pole. The figures (install, checks, notebook) are
printed (``-s`` shows them).
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import resource
import shutil
import subprocess
import sys
import tempfile
import time
import zipfile
from pathlib import Path

import nbformat
import pytest

from grader.check.command import ALL_PASSED
from grader.core import cache
from tests.helpers import ROOT, run_grader
from tests.notebooks.test_cell_isolation import COURSE, notebook

pytestmark = pytest.mark.slow

KITS = [a.id for a in COURSE.assignments] + ["all"]
FIGURES: dict[str, tuple[float, float]] = {}  # what -> (wall seconds, CPU seconds of the processes it ran)
# Executes a notebook in the environment it runs in (the kit's), as Jupyter would: its own folder is the
# kernel's working directory. Prints one JSON line: the seconds it took and what its cells printed.
RUN_NOTEBOOK = r"""
import json, sys, time
from pathlib import Path
import nbclient, nbformat
path = Path(sys.argv[1])
nb = nbformat.read(path, as_version=4)
nb.cells.append(nbformat.v4.new_code_cell("import sys, grader; print('kernel:', sys.executable, grader.__file__)"))
# The greedy return of each of its PPO runs, 20 episodes, as tests/course/test_ppo_training.py evaluates the
# graded runs (evaluation does not change training).
nb.cells.append(nbformat.v4.new_code_cell(
    "from ppo_training import evaluate_policy\n"
    "means = [float(evaluate_policy(run['parameters'], episodes=20, seed=5_000 + seed).mean())\n"
    "         for seed, run in zip(SEEDS, runs)]\n"
    "print('smoke runs evaluated:', float(np.median(means)), means)\n"
))
started = time.perf_counter()
nbclient.NotebookClient(nb, timeout=900, kernel_name="python3", resources={"metadata": {"path": str(path.parent)}}).execute()
outputs = [o for c in nb.cells if c.cell_type == "code" for o in c.get("outputs", [])]
print(json.dumps({
    "seconds": time.perf_counter() - started,
    "text": "".join(o.get("text", "") for o in outputs if o.get("output_type") == "stream"),
    "figures": sum(1 for o in outputs if "image/png" in o.get("data", {})),
}))
"""


@contextlib.contextmanager
def measured(what: str):
    def cpu() -> float:
        usage = resource.getrusage(resource.RUSAGE_CHILDREN)
        return usage.ru_utime + usage.ru_stime

    wall, used = time.perf_counter(), cpu()
    yield
    FIGURES[what] = (time.perf_counter() - wall, cpu() - used)


def environment(venv: Path) -> dict:
    """A student's shell with the kit's environment activated: nothing of this repository's."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("GRADER_", "PYTHON", "VIRTUAL_ENV", "RL_LLM"))}
    env.update(PATH=f"{venv / 'bin'}{os.pathsep}/usr/bin{os.pathsep}/bin", VIRTUAL_ENV=str(venv))
    return env


def run(args: list, cwd: Path, env: dict, timeout: float = 900) -> subprocess.CompletedProcess:
    return subprocess.run([str(a) for a in args], cwd=cwd, env=env, capture_output=True, text=True, timeout=timeout)


def wheelhouse_install(venv: Path, requirements: list[str], env: dict) -> None:
    """``pip install requirements`` offline from the wheelhouse in the grader's cache, filled from the pip
    cache (and PyPI) when something is missing. Skips when neither can provide them."""
    house = (cache.current().directory or Path(tempfile.gettempdir()) / "rl-llm-m4-grader") / "wheelhouse"
    house.mkdir(parents=True, exist_ok=True)
    pip = [venv / "bin" / "python", "-m", "pip"]
    offline = [*pip, "install", "-q", "--no-index", "--find-links", house, *requirements]
    if run(offline, venv.parent, env).returncode == 0:
        return
    with tempfile.TemporaryDirectory(dir=house.parent) as fresh:
        download = run([*pip, "download", "-q", "-d", fresh, *requirements], venv.parent, env)
        if download.returncode != 0:
            pytest.skip(f"the kit's dependencies are neither in {house} nor downloadable: {download.stderr[-500:]}")
        for wheel in Path(fresh).iterdir():
            if not wheel.name.startswith("rl_llm_m4_student_kit"):
                os.replace(wheel, house / wheel.name)  # atomic: another run may read the wheelhouse meanwhile
    proc = run(offline, venv.parent, env)
    assert proc.returncode == 0, proc.stdout + proc.stderr


@pytest.fixture(scope="module")
def kits(tmp_path_factory) -> Path:
    course_dir = tmp_path_factory.mktemp("course-build")
    proc = run_grader("build", "--course-dir", str(course_dir), timeout=900)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert sorted(p.name for p in (course_dir / "kit").glob("*.zip")) == sorted(f"{k}.zip" for k in KITS)
    return course_dir / "kit"


@pytest.fixture(scope="module")
def student(kits, tmp_path_factory) -> dict:
    """The whole module's kit unzipped into an empty folder and installed as its README.txt says (the
    environment shared by every kit's checker)."""
    home = tmp_path_factory.mktemp("student")
    with zipfile.ZipFile(kits / "all.zip") as archive:
        archive.extractall(home)
    kit = home / "all"
    readme = (kit / "README.txt").read_text(encoding="utf-8")
    [install] = re.findall(r'pip install "(checker/[^"]+\[notebooks\])"', readme)
    venv = kit / ".venv"
    env = environment(venv)
    with measured("install: the venv, then the checker with [notebooks] (from the wheelhouse)"):
        subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True, timeout=300)
        wheelhouse_install(venv, [str(kit / install), "nbclient"], env)
    return {"home": home, "venv": venv, "env": env}


def checker(student: dict, kits: Path, kit_id: str) -> tuple[Path, list[str], dict]:
    """The kit ``kit_id`` unzipped into a folder of its own, the command that runs its checker, and its
    environment (the whole module's kit is installed in the environment; another kit's checker is
    installed beside it and comes first on the path)."""
    folder = student["home"] / "kits" / kit_id
    folder.parent.mkdir(exist_ok=True)
    with zipfile.ZipFile(kits / f"{kit_id}.zip") as archive:
        archive.extractall(folder.parent)
    env = dict(student["env"])
    if kit_id == "all":
        return student["home"] / "all", [student["venv"] / "bin" / "grader"], env
    target = folder / ".checker"
    wheel = next((folder / "checker").glob("*.whl"))
    python = student["venv"] / "bin" / "python"
    if not target.is_dir():
        proc = run([python, "-m", "pip", "install", "-q", "--no-deps", "--target", target, wheel], folder, env)
        assert proc.returncode == 0, proc.stdout + proc.stderr
    env["PYTHONPATH"] = str(target)
    # As the `grader` script runs it: `python -m grader` would import a `grader` folder of the working
    # directory first (the repository's, when run there).
    script = folder.parent / "run_checker.py"
    script.write_text("import sys\nfrom grader.cli import main\n\nsys.exit(main())\n", encoding="utf-8")
    return folder, [python, script], env


def verdicts(stdout: str) -> dict[str, tuple[bool, list[str]]]:
    """exercise -> (passed, the messages under it), from `grader check`'s lines."""
    found: dict[str, tuple[bool, list[str]]] = {}
    current = None
    for line in stdout.splitlines():
        match = re.match(r"^([✓✗]) (\w+): \d+/\d+ visible tests passed", line)
        if match:
            current = match.group(2)
            found[current] = (match.group(1) == "✓", [])
        elif current and line.startswith("    - "):
            found[current][1].append(line[6:])
    return found


def own_exercises(kit_id: str) -> set[str]:
    return {e.function for e in COURSE.exercises if kit_id == "all" or e.assignment == kit_id}


@pytest.mark.parametrize("kit_id", KITS)
def test_every_visible_check_says_not_implemented_on_the_stubs_and_passes_on_the_reference(student, kits, kit_id):
    folder, grader, env = checker(student, kits, kit_id)
    stubs = run([*grader, "check"], folder, env)
    assert stubs.returncode == 1, stubs.stdout + stubs.stderr
    found = verdicts(stubs.stdout)
    assert set(found) == own_exercises(kit_id), stubs.stdout
    for name, (passed, messages) in found.items():
        assert not passed and messages, (name, messages)
        assert messages[0] == "not implemented" or messages[0].startswith(f"{name} is not answered yet"), messages
    for module in (folder / "exercises").glob("*.py"):  # the reference pasted in, as a student would
        shutil.copy(ROOT / "solutions" / module.name, module)
    with measured(f"grader check of kit {kit_id} on the reference"):
        done = run([*grader, "check"], folder, env)
    assert done.returncode == 0 and ALL_PASSED in done.stdout, done.stdout + done.stderr
    assert set(verdicts(done.stdout)) == own_exercises(kit_id) and not done.stderr
    labs = [e.function for e in COURSE.exercises if e.kind == "lab" and e.function in own_exercises(kit_id)]
    if kit_id == "lab4":  # the lab's notebook alone is checked with the modules beside it, for its exercises only
        alone = run([*grader, "check", "exercises/lab4.ipynb"], folder, env)
        assert alone.returncode == 0 and set(verdicts(alone.stdout)) == set(labs), alone.stdout + alone.stderr


def test_the_kits_command_is_a_students(student, kits):
    folder, grader, env = checker(student, kits, "ps4b")
    helped = run([*grader, "--help"], folder, env)
    assert re.findall(r"^    ([a-z][\w-]*) ", helped.stdout, re.M) == ["check", "modules", "help"], helped.stdout
    refused = run([*grader, "build"], folder, env)
    assert refused.returncode == 2 and "'build' is an instructor's command" in refused.stderr, refused.stderr
    assert "Traceback" not in refused.stderr
    # The checker checks its own kit's course, whatever folder it runs in (here: inside the repository's
    # tree would find course.yaml; a kit's checker does not look).
    inside = run([*grader, "check", folder / "exercises"], ROOT, env)
    assert set(verdicts(inside.stdout)) == own_exercises("ps4b"), inside.stdout + inside.stderr


def test_notebooks_checked_and_written_into_modules(student, kits, tmp_path):
    folder, grader, env = checker(student, kits, "lab4")
    work = tmp_path / "problem-sets"
    work.mkdir()
    for assignment in ("ps4a", "ps4b", "ps4c"):  # completed notebooks from the problem sets' kits
        nbformat.write(notebook(assignment, {}), work / f"{assignment}.ipynb")
    alone = run([*grader, "check", "exercises/lab4.ipynb"], folder, env)
    assert alone.returncode == 1 and "the lab runs your gae.py and ppo_objective.py" not in alone.stdout
    assert "not implemented" in alone.stdout, alone.stdout  # the stubs beside it are what it runs
    written = run([*grader, "modules", *sorted(work.glob("*.ipynb")), "--out", "exercises"], folder, env)
    assert written.returncode == 0, written.stdout + written.stderr
    done = run([*grader, "check", "exercises/lab4.ipynb"], folder, env)
    assert done.returncode == 0 and ALL_PASSED in done.stdout, done.stdout + done.stderr
    (folder / "exercises" / "gae.py").unlink()
    missing = run([*grader, "check", "--only", "cartpole_ppo_lab"], folder, env)
    assert "cartpole_ppo_lab: the lab runs your gae.py and ppo_objective.py, and exercises has no gae.py" in (
        " ".join(missing.stdout.split())
    ), missing.stdout


def test_the_lab_notebook_runs_top_to_bottom_in_the_kits_environment(student):
    kit = student["home"] / "all"
    for module in (kit / "exercises").glob("*.py"):
        shutil.copy(ROOT / "solutions" / module.name, module)
    script = student["home"] / "run_notebook.py"
    script.write_text(RUN_NOTEBOOK, encoding="utf-8")
    python = student["venv"] / "bin" / "python"
    with measured("the lab notebook, top to bottom (smoke profile), kernel start included"):
        proc = run([python, script, kit / "exercises" / "lab4.ipynb"], kit, student["env"], timeout=1800)
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-5000:]
    result = json.loads(proc.stdout.splitlines()[-1])
    text = result["text"]
    assert f"your code: {kit / 'exercises'}" in text
    assert f"kernel: {student['venv']}" in text and str(student["venv"]) in text.split("kernel:")[1]
    assert result["figures"] >= 4  # baselines, PPO curves, PPO diagnostics, the sequence run
    for lab in ("cartpole_ppo_lab", "sequence_rloo_lab"):  # its check cells: the visible checks, in the kernel
        assert f"All 1 visible checks of {lab} passed" in text, text[-3000:]
    # The notebook's runs (the whole smoke budget, two seeds) end with a median greedy return of at least 475.
    [evaluated] = [line for line in text.splitlines() if line.startswith("smoke runs evaluated:")]
    assert float(evaluated.split()[3]) >= 475, evaluated


def teardown_module():
    for what, (wall, cpu) in FIGURES.items():
        print(f"\n{what}: {wall:.1f} s ({cpu:.1f} s of CPU)", end="")
