"""Shared helpers of the grader's own tests."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

from grader.core.diagnosis import HEADER, MISTAKES_DIR, read_header

ROOT = Path(__file__).resolve().parents[1]
# Wrong implementations: the course's known mistakes of the function exercises (also used to
# diagnose students, so they live with the hidden tests) and the test data of labs and answers.
MUTANT_DIRS = ("autograder-tests/mistakes", "tests/data/mutants")
MISTAKES = ROOT / "autograder-tests" / MISTAKES_DIR
TRIVIAL = ROOT / "tests" / "data" / "trivial"
CORRECT = ROOT / "tests" / "data" / "correct"


def use_cache(monkeypatch, directory: Path | None) -> Path | None:
    """This process's grader cache in ``directory`` (None: none) for the test (grader.core.cache; a
    command line sets it from ``--cache`` or ``$GRADER_CASES_CACHE``), and back after it."""
    from grader.core import cache

    monkeypatch.setattr(cache, "_CURRENT", cache.GraderCache(directory))
    return directory


def mistake_cell(function: str, name: str) -> str:
    """A known mistake of a function exercise (its code without the docstring), as a student's cell."""
    text = (MISTAKES / function / f"{name}.py").read_text(encoding="utf-8")
    return text[HEADER.match(text).end() :].strip() + "\n"


def default_sigint() -> None:
    """``preexec_fn`` of a process a test interrupts with SIGINT: the default disposition, so Python
    turns SIGINT into KeyboardInterrupt there. A process started with SIGINT ignored (pytest run in
    the background, ``cmd &`` in a script) passes the ignoring on to its children, and Python keeps
    it: the signal would do nothing."""
    import signal

    signal.signal(signal.SIGINT, signal.SIG_DFL)


def run_grader(
    *args: str, cwd: Path = ROOT, timeout: float = 600, env: dict | None = None
) -> subprocess.CompletedProcess:
    """Run the real `grader` command line in a fresh process."""
    full_env = dict(os.environ, **(env or {}))
    return subprocess.run(
        [sys.executable, "-m", "grader", *args], cwd=cwd, capture_output=True, text=True, timeout=timeout, env=full_env
    )


def grade_json(*submissions: Path | str, only: list[str] | None = None, timeout: float = 600) -> list[dict]:
    """`grader grade --json` on submissions; one dict per submission, in order."""
    args = ["grade", "--json", *[str(s) for s in submissions]]
    for f in only or []:
        args += ["--only", f]
    proc = run_grader(*args, timeout=timeout)
    assert proc.returncode == 0, f"grader grade failed ({proc.returncode}):\n{proc.stderr}"
    lines = [line for line in proc.stdout.splitlines() if line.strip()]
    assert len(lines) == len(submissions), proc.stdout
    return [json.loads(line) for line in lines]


def grade_plan(plan: dict[str, dict], timeout: float = 1800) -> dict[str, dict]:
    """Grade many submissions in one session (``python -m grader.engine.batch``); result JSON by id.

    ``plan`` maps an id to ``{"path": ..., "only": [functions]}``.
    """
    proc = subprocess.run(
        [sys.executable, "-m", "grader.engine.batch"],
        input=json.dumps({"submissions": plan}),
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=timeout,
    )
    assert proc.returncode == 0, proc.stderr
    results = {}
    for line in proc.stdout.splitlines():
        line = json.loads(line)
        results[line["id"]] = line["record"]["result"]
    assert set(results) == set(plan), set(plan) - set(results)
    return results


@dataclass(frozen=True)
class Mutant:
    """A wrong implementation of one function, kept as test data."""

    function: str
    name: str
    path: Path
    summary: str
    expect: str  # a phrase some failure message must contain

    def __str__(self) -> str:
        return f"{self.function}/{self.name}"


def load_mutants(function: str | None = None, roots: tuple[Path, ...] = (ROOT,)) -> list[Mutant]:
    """Every wrong implementation under ``MUTANT_DIRS`` of each course root, by function and name."""
    mutants = []
    paths = [p for root in roots for folder in MUTANT_DIRS for p in (Path(root) / folder).glob("*/*.py")]
    for path in sorted(paths, key=lambda p: (p.parent.name, p.stem)):
        if function is not None and path.parent.name != function:
            continue
        header = read_header(path.read_text(encoding="utf-8"))
        assert header, f"{path}: a mutant starts with a docstring naming its misconception"
        summary, fields = header
        assert "expect" in fields, f"{path}: the docstring needs an 'expect: <phrase>' line"
        mutants.append(Mutant(path.parent.name, path.stem, path, summary, fields["expect"]))
    return mutants


def build_submission(
    dest: Path, replacements: list[Path] = (), course_root: Path = ROOT, modules_of: dict[str, str] | None = None
) -> Path:
    """A copy of solutions/ with each replacement file appended to the module of its function.

    A later ``def`` replaces the earlier one, so appending a mutant swaps in the wrong
    implementation while every other function stays correct. A mutant whose docstring
    has a ``module: <name>`` line goes to that module instead: a lab's mutants are wrong
    *student* functions (e.g. ``module: gae``), as the lab's own code is course-provided.
    """
    from grader.core.course import load_course

    course = load_course(course_root, check_tests=False)
    dest.mkdir(parents=True, exist_ok=True)
    for path in course.solutions_dir.glob("*.py"):
        shutil.copy(path, dest / path.name)
    for replacement in replacements:
        function = Path(replacement).parent.name
        text = Path(replacement).read_text(encoding="utf-8")
        declared = (read_header(text) or ("", {}))[1].get("module")
        module = (modules_of or {}).get(function) or declared or course.exercise(function).module
        with open(dest / f"{module}.py", "a", encoding="utf-8") as out:
            out.write("\n\n# --- replaced for a test ---\n")
            out.write(text)
    return dest


def recording(functions, seen: list):
    """A copy of ``functions`` (a namespace of functions) that appends ``(name, argument)`` to
    ``seen`` for every argument of every call, then calls the original."""

    def spy(function):
        def call(*args, **kwargs):
            seen.extend((function.__name__, value) for value in (*args, *kwargs.values()))
            return function(*args, **kwargs)

        return call

    return type(functions)(**{name: spy(f) for name, f in vars(functions).items()})


def trivial_bodies(course, function: str) -> dict[str, str]:
    """Source of every trivial body (``tests/data/trivial/bodies.py``) as an implementation of ``function``.

    The source is appended to a copy of the course's solutions (:func:`build_submission`), so
    it can find the right answer's shape from the reference defined above it.
    """
    import inspect

    sys.path.insert(0, str(TRIVIAL))
    try:
        import bodies
    finally:
        sys.path.remove(str(TRIVIAL))
    signature = inspect.signature(course.reference(function))
    first = next(iter(signature.parameters))
    helper = inspect.getsource(bodies.shaped_like)
    sources = {}
    for kind, body in bodies.BODIES.items():
        sources[kind] = (
            f'"""Trivial body of {function}: {kind}.\n\nexpect: nothing\n"""\n'
            "import dataclasses\nimport numpy as np\n\n\n"
            f"{helper}\n\n_reference_{function} = {function}\n\n\n"
            f"def {function}{signature}:\n"
            "    ARGS = dict(locals())\n"
            f"    FIRST = ARGS[{first!r}]\n\n"
            "    def shaped(fill):\n"
            "        try:\n"
            f"            return shaped_like(_reference_{function}(**ARGS), fill)\n"
            "        except Exception:\n"
            "            return fill\n\n"
            f"    {body}\n"
        )
    if "seed" in signature.parameters:
        # A simulation that does not simulate: the same draw whatever the seed (textbook-close constants).
        sources["ignores_seed"] = (
            sources["zeros"]
            .replace("    return shaped(0.0)\n", f"    return _reference_{function}(**dict(ARGS, seed=0))\n")
            .replace(": zeros.", ": ignores its seed.")
        )
    examples = _published_examples(course, function)
    if examples:
        # A memorised answer: the right one on every published worked example, zeros elsewhere.
        sources["memorised"] = (
            sources["zeros"]
            .replace(
                "    return shaped(0.0)\n",
                f"    for example in {examples!r}:\n"
                "        if all(np.array_equal(np.asarray(ARGS.get(k)), np.asarray(v)) for k, v in example.items()):\n"
                f"            return _reference_{function}(**ARGS)\n"
                "    return shaped(0.0)\n",
            )
            .replace(": zeros.", ": memorised worked examples.")
        )
    return sources


def _published_examples(course, function: str) -> list[dict]:
    """The arguments of ``function``'s worked examples (those a body doing no work does not reproduce)."""
    import yaml

    entries = yaml.safe_load((course.tests_dir / "worked_examples.yaml").read_text(encoding="utf-8")) or {}
    return [dict(e.get("args", {})) for e in entries.get(function, []) if not e.get("edge")]


def trivial_plan(course, dest: Path, functions: list[str]) -> dict[str, dict]:
    """A :func:`grade_plan` of every trivial body for every function in ``functions``.

    Ids are ``<function>/<kind>``; each submission is graded on its function only.
    """
    plan = {}
    for function in functions:
        for kind, source in trivial_bodies(course, function).items():
            body = dest / "bodies" / kind / function / "body.py"  # its folder names the function
            body.parent.mkdir(parents=True)
            body.write_text(source, encoding="utf-8")
            path = build_submission(dest / "submissions" / kind / function, [body], course_root=course.root)
            plan[f"{function}/{kind}"] = {"path": str(path), "only": [function]}
    return plan
