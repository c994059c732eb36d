"""The Gradescope autograder package of one assignment (``autograder.zip``).

Gradescope unzips the package into ``/autograder/source``, runs ``setup.sh`` once
when it builds the image, and ``run_autograder`` once per submission. The package
holds:

- ``setup.sh``: bubblewrap and Python (apt), then a virtual environment with
  ``requirements.txt``, the versions installed where the package was built;
- ``run_autograder``: :mod:`grader.gradescope.autograder` with the environment's Python
  (or the Python on PATH when setup.sh has not run);
- ``grader/``: this grader;
- ``course/``: course.yaml reduced to the assignment, the hidden tests of its
  functions and their worked examples, the reference solutions the hidden tests
  compare with (and the course code the assignment runs), the course-provided files;
- ``grader-package.json``: what the package grades.

The reference solutions are in the package: the hidden tests need them. Gradescope's
autograder image is not visible to students (they see results.json only), and the
student's code runs in a worker that cannot read it (bubblewrap where the container
allows it). Nothing of other assignments is packaged.
"""

from __future__ import annotations

import ast
import json
import platform
import re
import zipfile
from importlib import metadata
from pathlib import Path

import yaml
from packaging.requirements import Requirement
from packaging.utils import canonicalize_name

import grader
from grader.core.course import Assignment, Course
from grader.core.diagnosis import MISTAKES_DIR, mistake_files
from grader.core.staging import course_provided_files
from grader.core.stubs import SKIP_PARTS, generate
from grader.errors import GraderError

PACKAGE_FILE = "grader-package.json"
COURSE_DIR = "course"
DISTRIBUTION = "rl-llm-m4-grader"
# What the autograder imports beyond the grader's own dependencies: nbformat reads notebooks.
EXTRA_REQUIREMENTS = ("nbformat",)
EXECUTABLE = 0o755
WORKED_EXAMPLES = re.compile(r"worked_examples\(\s*[\"'](\w+)[\"']")

SETUP_SH = """\
#!/usr/bin/env bash
# Gradescope runs this once, as root, when it builds the autograder image (Ubuntu).
#   1. system: bubblewrap (the sandbox of student code) and Python {python} with venv
#   2. Python: a virtual environment with requirements.txt (the versions the package was built with)
# `setup.sh --python-only` runs part 2 alone, with python{python} or python3 from PATH.
set -euo pipefail
SOURCE="$(cd "$(dirname "${{BASH_SOURCE[0]}}")" && pwd)"
ROOT="${{GRADESCOPE_ROOT:-/autograder}}"
VENV="${{GRADER_VENV:-$ROOT/venv}}"
if [ "${{1:-}}" != "--python-only" ]; then
    export DEBIAN_FRONTEND=noninteractive
    apt-get update -q
    apt-get install -y -q bubblewrap
    apt-get install -y -q python{python} python{python}-venv || apt-get install -y -q python3 python3-venv
fi
PYTHON="$(command -v python{python} || command -v python3)"
"$PYTHON" -m venv "$VENV"
"$VENV/bin/python" -m pip install --quiet --disable-pip-version-check --requirement "$SOURCE/requirements.txt"
"""

RUN_AUTOGRADER = """\
#!/usr/bin/env bash
# Gradescope runs this once per submission, as root: grade $ROOT/submission into
# $ROOT/results/results.json. ROOT is $GRADESCOPE_ROOT, by default /autograder.
set -uo pipefail
ROOT="${GRADESCOPE_ROOT:-/autograder}"
VENV="${GRADER_VENV:-$ROOT/venv}"
PYTHON=python3
if [ -x "$VENV/bin/python" ]; then PYTHON="$VENV/bin/python"; fi
export PYTHONPATH="$ROOT/source${PYTHONPATH:+:$PYTHONPATH}"
cd "$ROOT"
exec "$PYTHON" -m grader.gradescope.autograder --root "$ROOT"
"""


def _imported_modules(path: Path, names: set[str]) -> set[str]:
    """Course modules that ``path`` imports (anywhere in it, functions included)."""
    found = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            found |= {alias.name.split(".")[0] for alias in node.names}
        elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
            found.add(node.module.split(".")[0])
    return found & names


def packaged_modules(course: Course, assignment: Assignment) -> tuple[list[str], list[str]]:
    """(student modules, course-provided modules) that grading ``assignment`` needs.

    The assignment's own modules, and every course module their course code imports
    (a lab's training code imports the student's functions). A student module ships
    as its reference solution; a course-provided one as the course code it is.
    """
    provided = {p.stem for p in course_provided_files(course) if p.suffix == ".py"}
    names = set(course.modules) | provided
    needed, queue = set(), list(dict.fromkeys(assignment.modules))
    while queue:
        module = queue.pop()
        if module in needed:
            continue
        needed.add(module)
        path = course.solutions_dir / f"{module}.py"
        if not path.is_file():
            raise GraderError(f"solutions/{module}.py does not exist: {assignment.id} cannot be packaged")
        queue += sorted(_imported_modules(path, names) - needed)
    return sorted(needed - provided), sorted(needed & provided)


def pinned_requirements(roots: list[str]) -> list[str]:
    """``name==version`` of every installed distribution ``roots`` need, dependencies included."""
    pins: dict[str, str] = {}
    queue = [Requirement(r) for r in roots]
    while queue:
        requirement = queue.pop()
        if requirement.marker is not None and not requirement.marker.evaluate({"extra": ""}):
            continue
        name = canonicalize_name(requirement.name)
        if name in pins:
            continue
        try:
            dist = metadata.distribution(requirement.name)
        except metadata.PackageNotFoundError:
            raise GraderError(
                f"{requirement.name} is not installed here: install the grader with its dependencies "
                f"(pip install '.[instructor]' in the course repository) before packaging"
            ) from None
        pins[name] = f"{dist.metadata['Name']}=={dist.version}"
        queue += [Requirement(r) for r in dist.requires or []]
    return sorted(pins.values(), key=str.lower)


def grader_requirements() -> list[str]:
    """What the grader needs at run time: its own dependencies (no extras) and nbformat."""
    own = [r for r in metadata.requires(DISTRIBUTION) or [] if "extra ==" not in r]
    return pinned_requirements([*own, *EXTRA_REQUIREMENTS])


def reduced_course_yaml(course: Course, assignment: Assignment) -> str:
    """course.yaml with ``assignment`` as its only assignment."""
    data = yaml.safe_load(course.course_file.read_text(encoding="utf-8"))
    data["assignments"] = [a for a in data["assignments"] if a.get("id") == assignment.id]
    return f"# course.yaml of {course.id}, reduced to {assignment.id} by `grader gradescope`.\n" + yaml.safe_dump(
        data, sort_keys=False, allow_unicode=True
    )


def _hidden_tests(course: Course, assignment: Assignment) -> dict[str, bytes]:
    """autograder-tests/ for the assignment: the shared files, its hidden tests, their worked examples,
    and the known mistakes the grader diagnoses its functions' failures with."""
    tests = course.tests_dir
    files = {
        f"autograder-tests/{p.name}": p.read_bytes()
        for p in sorted(tests.iterdir())
        if p.is_file() and p.name != "worked_examples.yaml"
    }
    examples = set()
    for e in assignment.exercises:
        path = course.hidden_test_file(e.function)
        if not path.is_file():
            raise GraderError(
                f"{e.function} has no hidden tests ({path.relative_to(course.root)}): "
                f"{assignment.id} cannot be packaged"
            )
        text = path.read_text(encoding="utf-8")
        files[f"autograder-tests/hidden/{path.name}"] = text.encode("utf-8")
        examples |= set(WORKED_EXAMPLES.findall(text)) | {e.function}
        for mistake in mistake_files(course, e.function):
            files[f"autograder-tests/{MISTAKES_DIR}/{e.function}/{mistake.name}"] = mistake.read_bytes()
    for helper in sorted(course.hidden_tests_dir.iterdir()):  # helpers the hidden tests share
        if helper.is_file() and not helper.name.startswith("test_") and helper.suffix == ".py":
            files[f"autograder-tests/hidden/{helper.name}"] = helper.read_bytes()
    worked = tests / "worked_examples.yaml"
    if worked.is_file():
        data = yaml.safe_load(worked.read_text(encoding="utf-8")) or {}
        kept = {k: v for k, v in data.items() if k in examples}
        files["autograder-tests/worked_examples.yaml"] = yaml.safe_dump(kept, sort_keys=False).encode("utf-8")
    return files


def package_files(course: Course, assignment: Assignment) -> dict[str, tuple[bytes, int]]:
    """Path in the zip -> (content, mode) of every file of the package."""
    student, provided = packaged_modules(course, assignment)
    python = ".".join(platform.python_version_tuple()[:2])
    files: dict[str, tuple[bytes, int]] = {
        "setup.sh": (SETUP_SH.format(python=python).encode(), EXECUTABLE),
        "run_autograder": (RUN_AUTOGRADER.encode(), EXECUTABLE),
        "requirements.txt": (("".join(f"{pin}\n" for pin in grader_requirements())).encode(), 0o644),
    }
    manifest = {
        "assignment": assignment.id,
        "course": course.id,
        "notebook": f"{assignment.id}.ipynb",
        "student_modules": student,
        "grader": grader.__version__,
        "python": platform.python_version(),
    }
    files[PACKAGE_FILE] = (json.dumps(manifest, indent=1).encode() + b"\n", 0o644)
    package_root = Path(grader.__file__).resolve().parent
    for path in sorted(package_root.rglob("*")):
        rel = path.relative_to(package_root.parent)
        if path.is_file() and not SKIP_PARTS & set(rel.parts) and path.suffix != ".pyc":
            files[rel.as_posix()] = (path.read_bytes(), 0o644)
    inside = {"course.yaml": reduced_course_yaml(course, assignment).encode("utf-8")}
    inside.update({f"solutions/{m}.py": (course.solutions_dir / f"{m}.py").read_bytes() for m in student + provided})
    stubs = generate(course)
    inside.update({f"exercises/{m}.py": stubs[Path(f"{m}.py")] for m in provided})
    inside.update(_hidden_tests(course, assignment))
    files.update({f"{COURSE_DIR}/{rel}": (content, 0o644) for rel, content in inside.items()})
    return files


def write_package(course: Course, assignment_id: str, out: Path) -> Path:
    """Write the autograder.zip of ``assignment_id`` to ``out``; return it."""
    assignment = course.assignment(assignment_id)
    files = package_files(course, assignment)
    out = Path(out)
    if out.is_dir():
        out = out / "autograder.zip"
    tmp = out.with_name(out.name + ".part")
    try:
        out.parent.mkdir(parents=True, exist_ok=True)
        with zipfile.ZipFile(tmp, "w", compression=zipfile.ZIP_DEFLATED) as archive:
            for name, (content, mode) in sorted(files.items()):
                info = zipfile.ZipInfo(name, date_time=(2020, 1, 1, 0, 0, 0))  # the same bytes on every build
                info.external_attr = (0o100000 | mode) << 16
                info.compress_type = zipfile.ZIP_DEFLATED
                archive.writestr(info, content)
        tmp.replace(out)
    except OSError as exc:
        tmp.unlink(missing_ok=True)
        raise GraderError(f"cannot write {out}: {exc.strerror}") from None
    return out
