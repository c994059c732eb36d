"""Benchmark: grading a class with `grader grade-class` and `grader autograde` against plain `nbgrader autograde`.

Builds K synthetic full-module submissions (correct, wrong by known misconceptions,
untouched stubs, and one with an endless loop in gae_advantages) and grades the
same code, in the same run, three ways:

(a) this grader on .py modules: ``grader grade-class -j J --require-sandbox`` (bubblewrap
    sandbox, resource limits, one zygote per grading process);
(b) plain nbgrader: an nbgrader course with one notebook per assignment, written
    here with nbformat. Its cells hold the student's code and, in hidden-test
    cells, the same hidden tests (the test files' source, run by a small in-kernel
    runner), so both sides do the same checks. ``nbgrader autograde`` then runs
    every notebook in a fresh kernel, as nbgrader does;
(c) this grader on notebooks: the course directory ``grader build`` makes, the same
    code in each release notebook's solution cells (submitted/<student>/<assignment>/),
    and ``grader autograde ps4a ps4b ... --jobs J --require-sandbox`` (every assignment, one
    after the other, in one command), timed end to end: extraction, grading, the
    autograded notebooks and the gradebook (SQLite), and the check of the gradebook.

All grade the exercises of kind function and answer; the training labs are left
out (they cost the same minutes of training either way and would only dilute the
comparison). Prints wall time, CPU time (the machine's, all cores) and submissions
per second for each, the ratios, the phases of (c), and the fixed costs (worker fork vs
kernel start) measured in the same run.

Usage: python benchmarks/bench_class.py [--k 24] [--jobs 2] [--only FUNCTION ...] [--keep DIR]

``--only gae_advantages`` compares one-function submissions (one notebook each in (b); (c),
which grades whole assignments, is then left out).
"""

from __future__ import annotations

import argparse
import json
import os
import random
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from contextlib import contextmanager
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

import nbformat  # noqa: E402

from grader.core.course import load_course  # noqa: E402
from grader.notebooks.segments import course_modules  # noqa: E402

MUTANTS = ROOT / "autograder-tests" / "mistakes"  # known mistakes of the function exercises
LOOP = """

def gae_advantages(rewards, values, next_values, terminated, trace_cuts, gamma, gae_lambda):
    while True:  # an endless loop, graded within the time limit
        pass
"""

# -- the in-kernel runner of plain nbgrader's hidden-test cells ----------------------------
RUNNER = r'''
import copy as _copy
import dataclasses as _dataclasses
import inspect as _inspect
import itertools as _itertools

from hypothesis import HealthCheck as _HealthCheck, Phase as _Phase, settings as _settings

from grader import testing as _testing
from grader.core.course import load_course as _load_course
from grader.core.submission import Record as _Record

_COURSE = _load_course(COURSE_ROOT, check_tests=False)
_testing.CONTEXT.course = _COURSE
_settings.register_profile("hidden", max_examples=_COURSE.property_examples, derandomize=True, deadline=None,
                           database=None, phases=(_Phase.explicit, _Phase.generate), report_multiple_bugs=False,
                           suppress_health_check=list(_HealthCheck), print_blob=False)
_settings.load_profile("hidden")


class _Function:
    def __init__(self, f):
        self._f = f
        self.__name__ = getattr(f, "__name__", "function")

    def __call__(self, *args, **kwargs):
        return _as_tests_see_it(self._f(*args, **kwargs))

    def call_with_readonly_inputs(self, *args, **kwargs):
        def readonly(value):
            value = _copy.deepcopy(value)
            if hasattr(value, "setflags"):
                value.setflags(write=False)
            return value

        return self(*map(readonly, args), **{k: readonly(v) for k, v in kwargs.items()})


def _as_tests_see_it(value):
    """Dataclass instances as the hidden tests expect them (type name and fields)."""
    if _dataclasses.is_dataclass(value) and not isinstance(value, type):
        return _Record(type(value).__name__, {f.name: _as_tests_see_it(getattr(value, f.name))
                                              for f in _dataclasses.fields(value)})
    return value


class _Student:
    """`impl` of the hidden tests: the notebook's own definitions."""

    def __getattr__(self, name):
        if name.startswith("_"):
            raise AttributeError(name)
        value = globals().get(name)
        if value is None:  # AttributeError, as a module would: hypothesis probes attributes
            raise AttributeError(f"{name} is not defined")
        return _Function(value) if callable(value) else value

    def value(self, name):
        return globals().get(name)


class _Reference:
    def __getattr__(self, name):
        if name.startswith("_"):
            raise AttributeError(name)
        return _COURSE.reference(name)


def _cases(test):
    grids = []
    for mark in getattr(test, "pytestmark", []):
        if mark.name != "parametrize":
            continue
        names, values = mark.args[0], mark.args[1]
        names = [n.strip() for n in names.split(",")] if isinstance(names, str) else list(names)
        rows = []
        for v in values:
            if type(v).__name__ == "ParameterSet":  # pytest.param(...): its values, one per name
                rows.append(dict(zip(names, v.values)))
            else:
                rows.append(dict(zip(names, v if len(names) > 1 else (v,))))
        grids.append(rows)
    for combo in _itertools.product(*grids):
        merged = {}
        for part in combo:
            merged.update(part)
        yield merged


def run_hidden_tests(function, source):
    """Run one hidden test file against this notebook; fail the cell if any test fails."""
    import pytest

    _testing.CONTEXT.function = function
    namespace = {"__name__": f"hidden_{function}"}
    exec(compile(source, f"hidden/test_{function}.py", "exec"), namespace)
    failed, ran = [], 0
    for name, test in list(namespace.items()):
        if not (name.startswith("test") and callable(test)):
            continue
        wanted = _inspect.signature(test).parameters
        for case in _cases(test):
            arguments = dict(case)
            if "impl" in wanted:
                arguments["impl"] = _Student()
            if "reference" in wanted:
                arguments["reference"] = _Reference()
            ran += 1
            try:
                test(**arguments)
            except pytest.skip.Exception:
                pass
            except Exception as exc:
                failed.append(f"{name}: {type(exc).__name__}: {str(exc)[:120]}")
    assert not failed, f"{len(failed)} of {ran} hidden tests of {function} failed: " + "; ".join(failed[:3])
'''


def nb_meta(grade_id: str, *, grade=False, solution=False, locked=False, points=None) -> dict:
    meta = {
        "grade": grade,
        "grade_id": grade_id,
        "locked": locked,
        "schema_version": 3,
        "solution": solution,
        "task": False,
    }
    if grade:
        meta["points"] = float(points)
    return meta


def source_notebook(course, assignment, functions: list[str]) -> nbformat.NotebookNode:
    """The instructor's notebook: reference code in solution cells, hidden tests in test cells."""
    nb = nbformat.v4.new_notebook()
    nb.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3", "language": "python"}
    cells = [nbformat.v4.new_markdown_cell(f"# {assignment.id}: {assignment.title}")]
    setup = nbformat.v4.new_code_cell(f"COURSE_ROOT = {str(course.root)!r}\n" + RUNNER)
    setup.metadata["nbgrader"] = nb_meta("setup", locked=True)
    cells.append(setup)
    used = {course.exercise(f).module for f in functions}
    for module in [m for m in assignment.modules if m in used]:
        # The reference module as it is: its own BEGIN/END SOLUTION regions are nbgrader's.
        cell = nbformat.v4.new_code_cell((course.solutions_dir / f"{module}.py").read_text())
        cell.metadata["nbgrader"] = nb_meta(f"code_{module}", solution=True)
        cells.append(cell)
    for e in assignment.exercises:
        if e.function not in functions:
            continue
        tests = course.hidden_test_file(e.function).read_text()
        cell = nbformat.v4.new_code_cell(
            f"# Tests of {e.function}\n### BEGIN HIDDEN TESTS\n"
            f"run_hidden_tests({e.function!r}, {tests!r})\n### END HIDDEN TESTS"
        )
        cell.metadata["nbgrader"] = nb_meta(f"test_{e.function}", grade=True, locked=True, points=e.points)
        cells.append(cell)
    for i, cell in enumerate(cells):
        cell.id = f"cell-{i}"
    nb.cells = cells
    return nb


def nbgrader_env() -> dict:
    env = dict(os.environ)
    env["PATH"] = os.pathsep.join([str(Path(sys.executable).parent), env.get("PATH", "")])
    env["PYTHONPATH"] = os.pathsep.join(p for p in [str(ROOT), env.get("PYTHONPATH", "")] if p)
    for var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
        env[var] = "1"  # as the grader's workers: one BLAS thread
    return env


def nbgrader(course_dir: Path, *args: str) -> subprocess.CompletedProcess:
    proc = subprocess.run(
        [sys.executable, "-m", "nbgrader", *args], cwd=course_dir, capture_output=True, text=True, env=nbgrader_env()
    )
    if proc.returncode != 0:
        sys.exit(f"nbgrader {' '.join(args)} failed:\n{(proc.stdout + proc.stderr)[-3000:]}")
    return proc


# -- the class -------------------------------------------------------------------------------
def make_class(
    course, directory: Path, k: int, seed: int, modules: list[str]
) -> tuple[dict[str, str], dict[str, dict[str, str]]]:
    """K submissions (one directory each): ({student: kind}, {student: {function: code appended}})."""
    rng = random.Random(seed)
    mutants = {p.parent.name: [] for p in MUTANTS.glob("*/*.py")}
    for p in sorted(MUTANTS.glob("*/*.py")):
        mutants[p.parent.name].append(p)
    mutable = sorted(f for f in mutants if f in course.functions and course.exercise(f).module in modules)
    kinds = ["looping"] + [["correct", "wrong", "stubs"][i % 3] for i in range(k - 1)]
    students, appended = {}, {}
    for i, kind in enumerate(kinds):
        student = f"student{i:03d}"
        dest = directory / student
        dest.mkdir(parents=True)
        source = course.exercises_dir if kind == "stubs" else course.solutions_dir
        for module in modules:
            shutil.copy(source / f"{module}.py", dest / f"{module}.py")
        extra = {}
        if kind == "wrong":
            for function in rng.sample(mutable, min(3, len(mutable))):
                extra[function] = rng.choice(mutants[function]).read_text()
        if kind == "looping":
            extra["gae_advantages"] = LOOP
        for function, code in extra.items():
            with open(dest / f"{course.exercise(function).module}.py", "a") as out:
                out.write("\n\n" + code)
        students[student], appended[student] = kind, extra
    return students, appended


def module_sources(submission: Path, modules: list[str]) -> dict[str, str]:
    return {m: (submission / f"{m}.py").read_text() for m in modules}


# -- (a) this grader ---------------------------------------------------------------------------
def run_grader(course, submissions: Path, out: Path, functions: list[str], *options: str) -> float:
    """Seconds for ``grader grade-class`` with ``options`` (e.g. ``-j 2``), sandbox required, every one regraded."""
    argv = [
        sys.executable,
        "-m",
        "grader",
        "grade-class",
        str(submissions),
        "--out",
        str(out),
        "--course",
        str(course.root),
        "--require-sandbox",
        "--force",
        *options,
    ]
    for f in functions:
        argv += ["--only", f]
    started = time.perf_counter()
    proc = subprocess.run(argv, capture_output=True, text=True)
    elapsed = time.perf_counter() - started
    if proc.returncode != 0:
        sys.exit(f"grader grade-class {' '.join(options)} failed:\n{proc.stderr[-3000:]}")
    return elapsed


# -- (b) plain nbgrader ------------------------------------------------------------------------
def build_nbgrader_course(course, course_dir: Path, submissions: Path, students: dict, functions: list[str]):
    assignments = [a for a in course.assignments if any(e.function in functions for e in a.exercises)]
    course_dir.mkdir(parents=True, exist_ok=True)
    (course_dir / "nbgrader_config.py").write_text(
        f"c = get_config()\nc.CourseDirectory.root = {str(course_dir)!r}\nc.CourseDirectory.course_id = 'bench'\n"
    )
    for a in assignments:
        nb = source_notebook(course, a, functions)
        path = course_dir / "source" / a.id / f"{a.id}.ipynb"
        path.parent.mkdir(parents=True, exist_ok=True)
        nbformat.write(nb, path)
        nbgrader(course_dir, "generate_assignment", a.id, "--force")
    for student in students:
        sources = module_sources(submissions / student, list({course.exercise(f).module for f in functions}))
        for a in assignments:
            release = nbformat.read(course_dir / "release" / a.id / f"{a.id}.ipynb", as_version=4)
            for cell in release.cells:
                grade_id = cell.metadata.get("nbgrader", {}).get("grade_id", "")
                if grade_id.startswith("code_"):
                    cell.source = sources[grade_id[len("code_") :]]
            dest = course_dir / "submitted" / student / a.id / f"{a.id}.ipynb"
            dest.parent.mkdir(parents=True, exist_ok=True)
            nbformat.write(release, dest)
    return assignments


def run_nbgrader(course_dir: Path, assignments) -> float:
    started = time.perf_counter()
    for a in assignments:
        nbgrader(course_dir, "autograde", a.id, "--force")
    return time.perf_counter() - started


def nbgrader_scores(course_dir: Path, students: dict, course_id: str = "default_course") -> dict[str, float]:
    from nbgrader.api import Gradebook

    scores = {}
    with Gradebook(f"sqlite:///{course_dir / 'gradebook.db'}", course_id) as gb:
        for student in students:
            scores[student] = sum(s.score for s in gb.find_student(student).submissions)
    return scores


# -- (c) this grader on notebooks ----------------------------------------------------------------
def build_grader_course(course, course_dir: Path, students: dict, appended: dict, assignments) -> None:
    """`grader build` of ``assignments``, and each student's code in the release notebooks: every
    solution cell holds the reference code and what the student appended to it (a stub stays a stub)."""
    argv = [
        sys.executable,
        "-m",
        "grader",
        "build",
        "--course",
        str(course.root),
        "--course-dir",
        str(course_dir),
        "--no-leak-check",
    ]
    for a in assignments:
        argv += ["--assignment", a.id]
    proc = subprocess.run(argv, capture_output=True, text=True)
    if proc.returncode != 0:
        sys.exit(f"grader build failed:\n{(proc.stdout + proc.stderr)[-3000:]}")
    solution = {f: text for parts in course_modules(course).values() for f, text in parts.exercises.items()}
    last = {e.module: e.function for e in course.exercises}  # the last cell of each module
    for a in assignments:
        release = (course_dir / "release" / a.id / f"{a.id}.ipynb").read_text()
        for student, kind in students.items():
            # What (a) appends to a module goes at the end of the module's last cell, so that the
            # extracted module is (a)'s (a known mistake may refer to a later function of the module).
            tail = {}
            for function, code in appended[student].items():
                module = course.exercise(function).module
                tail[last[module]] = tail.get(last[module], "") + "\n\n" + code
            nb = nbformat.reads(release, as_version=4)
            for cell in nb.cells:
                meta = cell.metadata.get("nbgrader", {})
                function = meta.get("grade_id")
                if meta.get("solution") and kind != "stubs" and function in solution:
                    cell.source = solution[function] + tail.get(function, "")
            dest = course_dir / "submitted" / student / a.id / f"{a.id}.ipynb"
            dest.parent.mkdir(parents=True, exist_ok=True)
            nbformat.write(nb, dest)


PHASES = re.compile(r"took [0-9.]+ s \((.*)\)")


def run_autograde(course, course_dir: Path, assignments, jobs: int) -> tuple[float, dict[str, float]]:
    """Seconds for one ``grader autograde`` of every assignment (one after the other), and the seconds
    of each of its steps, summed over the assignments (each prints its own)."""
    started = time.perf_counter()
    proc = subprocess.run(
        [
            sys.executable,
            "-m",
            "grader",
            "autograde",
            *[a.id for a in assignments],
            "--course",
            str(course.root),
            "--course-dir",
            str(course_dir),
            "--jobs",
            str(jobs),
            "--require-sandbox",
        ],
        capture_output=True,
        text=True,
        env=dict(os.environ, COLUMNS="200"),
    )
    elapsed = time.perf_counter() - started
    if proc.returncode != 0:
        sys.exit(f"grader autograde failed:\n{(proc.stdout + proc.stderr)[-3000:]}")
    phases: dict[str, float] = {}
    for found in PHASES.finditer(proc.stdout):
        for part in found.group(1).split(", "):
            step, seconds = part.rsplit(" ", 1)
            phases[step] = phases.get(step, 0.0) + float(seconds)
    return elapsed, phases


def busy_cpu_seconds() -> float:
    """CPU seconds the machine has spent busy since it started (all cores; /proc/stat)."""
    with open("/proc/stat") as stat:
        user, nice, system, idle, iowait, irq, softirq, steal = map(int, stat.readline().split()[1:9])
    return (user + nice + system + irq + softirq + steal) / os.sysconf("SC_CLK_TCK")


@contextmanager
def machine_cpu(into: dict, key: str):
    """CPU seconds the whole machine was busy during the block. Not the processes' own accounting:
    sandboxed workers are reaped inside their PID namespace, and their time never reaches
    ``RUSAGE_CHILDREN`` here. Anything else running counts too: see the load average printed."""
    before = busy_cpu_seconds()
    yield
    into[key] = busy_cpu_seconds() - before


# -- fixed costs, measured the same way as everything else here -------------------------------
def worker_fork_cost(course, repeat: int = 20) -> float:
    from grader.sandbox import sandbox_launcher
    from grader.worker.client import WorkerProcess

    with tempfile.TemporaryDirectory() as tmp, sandbox_launcher(course, mode="require") as launcher:
        sub = Path(tmp) / "s"
        sub.mkdir()
        for module in course.modules:
            shutil.copy(course.solutions_dir / f"{module}.py", sub)
        launcher.start()
        times = []
        for _ in range(repeat):
            started = time.perf_counter()
            worker = WorkerProcess(sub, launcher)
            worker.start()
            worker.request({"op": "ping"}, timeout=30)
            worker.kill()
            times.append(time.perf_counter() - started)
    return statistics.median(times)


def kernel_start_cost(repeat: int = 5) -> float:
    from jupyter_client.manager import start_new_kernel

    times = []
    for _ in range(repeat):
        started = time.perf_counter()
        km, kc = start_new_kernel(kernel_name="python3")
        kc.execute_interactive("import numpy", timeout=60)
        times.append(time.perf_counter() - started)
        kc.stop_channels()
        km.shutdown_kernel(now=True)
    return statistics.median(times)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--k", type=int, default=24, help="submissions in the class (default 24)")
    parser.add_argument("--jobs", type=int, default=os.cpu_count() or 2, help="grade-class processes")
    parser.add_argument("--seed", type=int, default=4)
    parser.add_argument("--keep", metavar="DIR", help="build everything in DIR and keep it")
    parser.add_argument(
        "--only",
        action="append",
        metavar="FUNCTION",
        help="grade only these exercises (repeatable; default: every function and answer)",
    )
    args = parser.parse_args()

    course = load_course(ROOT)
    functions = [e.function for e in course.exercises if e.kind != "lab" and (not args.only or e.function in args.only)]
    if "gae_advantages" not in functions:
        sys.exit("the benchmark's endless loop is in gae_advantages: include it")
    modules = list(dict.fromkeys(course.exercise(f).module for f in functions))
    work = Path(args.keep) if args.keep else Path(tempfile.mkdtemp(prefix="bench-class-"))
    if work.exists() and any(work.iterdir()):
        shutil.rmtree(work)
    work.mkdir(parents=True, exist_ok=True)
    submissions = work / "submissions"
    students, appended = make_class(course, submissions, args.k, args.seed, modules)
    mix = {kind: sum(1 for k in students.values() if k == kind) for kind in ("correct", "wrong", "stubs", "looping")}
    what = "full-module" if not args.only else f"{len(functions)}-function"
    print(
        f"class: {args.k} {what} submissions ({', '.join(f'{n} {k}' for k, n in mix.items())}); "
        f"{len(functions)} exercises (functions and answers; labs left out), hidden tests of "
        f"{len(modules)} modules; load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} CPUs"
    )

    cpu: dict[str, float] = {}
    with machine_cpu(cpu, "a"):
        ours = run_grader(course, submissions, work / "grader-results", functions, "-j", str(args.jobs))
    records = [json.loads(p.read_text()) for p in (work / "grader-results" / "results").glob("*.json")]
    per_kind = {
        kind: statistics.median(r["elapsed"] for r in records if students[r["student"]] == kind)
        for kind in mix
        if mix[kind]
    }

    course_dir = work / "nbgrader-course"
    assignments = build_nbgrader_course(course, course_dir, submissions, students, functions)
    with machine_cpu(cpu, "b"):
        theirs = run_nbgrader(course_dir, assignments)
    scores = {"a": {r["student"]: r["result"]["total"] for r in records}, "b": nbgrader_scores(course_dir, students)}
    notebooks = None
    if not args.only:  # grader autograde grades whole assignments
        grader_dir = work / "grader-course"
        build_grader_course(course, grader_dir, students, appended, assignments)
        with machine_cpu(cpu, "c"):
            notebooks, phases = run_autograde(course, grader_dir, assignments, args.jobs)
        scores["c"] = nbgrader_scores(grader_dir, students, course.id)

    fork = worker_fork_cost(course)
    kernel = kernel_start_cost()

    def line(label: str, seconds: float, key: str) -> str:
        return (
            f"{label:<58} {seconds:7.1f} s wall {cpu[key]:7.1f} s CPU   {args.k / seconds:6.2f} submissions/s"
            f"   ({seconds / args.k:.2f} s per submission)"
        )

    print()
    print(line(f"(a) grader grade-class -j {args.jobs}, .py modules, sandbox:", ours, "a"))
    print(line(f"(b) plain nbgrader autograde, {len(assignments)} notebooks each:", theirs, "b"))
    if notebooks is not None:
        print(
            line(
                f"(c) grader autograde --jobs {args.jobs}, {len(assignments)} notebooks each, sandbox:", notebooks, "c"
            )
        )
    print(f"ratio (a)/(b) in submissions per second: {theirs / ours:.1f}x   (goal >= 40x, issue 20)")
    if notebooks is not None:
        print(
            f"ratio (c)/(b) in submissions per second: {theirs / notebooks:.1f}x   (goal >= 20x, issue 20); in CPU time: "
            f"{cpu['b'] / cpu['c']:.1f}x"
        )
        rest = notebooks - sum(phases.values())
        print(
            f"phases of (c), summed over its {len(assignments)} assignments: "
            + ", ".join(f"{step} {seconds:.1f} s" for step, seconds in phases.items() if step != "collect")
            + f"; and {rest:.1f} s starting the command (Python, imports, the course) and printing"
        )
    print()
    print(
        "inside (a), median grading time of one submission, by kind: "
        + ", ".join(f"{kind} {t:.2f} s" for kind, t in per_kind.items())
    )
    print(
        f"fixed cost per submission: (a) fork a sandboxed worker, ping, kill and wipe {fork * 1000:.1f} ms; "
        f"(b) start a kernel and import numpy {kernel:.2f} s per notebook, {kernel / fork:.0f}x the fork "
        f"({len(assignments)} notebooks a submission: {kernel * len(assignments) / fork:.0f}x)"
    )

    def count(key, kind, test):
        group = [s for s, k in students.items() if k == kind]
        return f"{sum(1 for s in group if test(scores[key].get(s, 0.0)))}/{len(group)}"

    top = sum(course.exercise(f).points for f in functions)
    checks = {
        "correct at full marks": ("correct", lambda v: v == top),
        "stubs at zero": ("stubs", lambda v: v == 0),
        "wrong below full marks": ("wrong", lambda v: v < top),
    }
    print(
        "sanity: "
        + "; ".join(
            f"{what} " + ", ".join(f"({key}) {count(key, kind, test)}" for key in scores)
            for what, (kind, test) in checks.items()
        )
    )
    if "c" in scores:
        same = sum(1 for s in students if abs(scores["c"].get(s, -1) - scores["a"].get(s, -2)) < 1e-6)
        print(f"(c) gives the grades of (a) to {same}/{args.k} students")
    if args.keep:
        print(f"kept: {work}")
    else:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
