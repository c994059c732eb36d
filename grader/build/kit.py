"""The student kit: what a student receives, with a checker that needs neither solutions nor hidden tests.

``grader build`` writes one kit per assignment and one for the whole module into
``course-build/kit/<id>/`` (and ``<id>.zip``)::

    exercises/                 the stubs: the student's work
    notebooks/                 the release notebooks, when nbgrader built them
    checker/<name>.whl         `pip install checker/*.whl` installs the checker (a wheel, so no build
                               tools are needed): this grader, and in rl_llm_m4_kit/course/
                               the course as the checker needs it: course.yaml (reduced to the
                               kit's assignments), the stubs (course-provided code and notebook
                               preludes come from them), the visible tests and their pytest.ini and
                               conftest.py, nothing else
    README.txt                 what to run

Installed, ``grader check`` finds the course in the kit when no ``course.yaml`` is found
around the working directory, so it works in any folder. Nothing of ``solutions/`` or of
``autograder-tests/hidden`` (nor the mistakes, nor the worked examples) is copied; the leak
check reads every file of every kit.
"""

from __future__ import annotations

import base64
import hashlib
import re
import shutil
import zipfile
from pathlib import Path

import yaml

import grader
from grader.core.course import Course
from grader.core.stubs import SKIP_PARTS

KIT_DIR = "kit"
KIT_PACKAGE = "rl_llm_m4_kit"
ALL = "all"
# What the checker imports: the grader's own run-time dependencies (its pyproject) and nbformat for notebooks.
REQUIREMENTS = ("numpy>=1.24", "pytest>=7", "hypothesis>=6", "pyyaml>=6", "rich>=13", "nbformat>=5.9")


def kit_course_yaml(course: Course, assignments: list[str], label: str) -> str:
    data = yaml.safe_load(course.course_file.read_text(encoding="utf-8"))
    data["assignments"] = [a for a in data["assignments"] if a.get("id") in assignments]
    return (
        f"# course.yaml of {course.id} for the student kit {label} (`grader build`): no solutions, no "
        "hidden tests.\n" + yaml.safe_dump(data, sort_keys=False, allow_unicode=True)
    )


def _copy_package(dest: Path) -> None:
    source = Path(grader.__file__).parent
    shutil.copytree(source, dest, ignore=shutil.ignore_patterns(*SKIP_PARTS, "*.pyc"))


def write_kit(course: Course, out: Path, kit_id: str, assignments: list[str], release: Path | None = None) -> Path:
    """One kit (folder and zip) for ``assignments``; returns its folder."""
    folder = out / kit_id
    if folder.exists():
        shutil.rmtree(folder)
    exercises = [e for e in course.exercises if e.assignment in assignments]
    modules = sorted({e.module for e in exercises})
    data = folder / KIT_PACKAGE / "course"
    (data / "exercises").mkdir(parents=True)
    (data / "autograder-tests" / "visible").mkdir(parents=True)
    (folder / "exercises").mkdir()
    (data / "course.yaml").write_text(kit_course_yaml(course, assignments, kit_id), encoding="utf-8")
    for path in sorted(course.exercises_dir.glob("*.py")):
        # Every stub and course file: a module's prelude, and lab code, may import another module.
        shutil.copy(path, data / "exercises" / path.name)
        if path.stem in modules:
            shutil.copy(path, folder / "exercises" / path.name)
    for name in ("pytest.ini", "conftest.py"):  # how the tests run (the plugin that gives them `impl`)
        if (course.tests_dir / name).is_file():
            shutil.copy(course.tests_dir / name, data / "autograder-tests" / name)
    for e in exercises:
        visible = course.visible_test_file(e.function)
        if e.visible and visible.is_file():
            shutil.copy(visible, data / "autograder-tests" / "visible" / visible.name)
    (folder / KIT_PACKAGE / "__init__.py").write_text(
        f'"""The course {course.id} as the student checker needs it (no solutions, no hidden tests)."""\n',
        encoding="utf-8",
    )
    _copy_package(folder / "grader")
    for a in assignments:
        notebook_dir = release / a if release is not None else None
        for nb in sorted(notebook_dir.glob("*.ipynb")) if notebook_dir and notebook_dir.is_dir() else []:
            (folder / "notebooks").mkdir(exist_ok=True)
            shutil.copy(nb, folder / "notebooks" / nb.name)
    wheel = write_wheel(folder, f"{course.id}-student-kit-{kit_id}", folder / "checker")
    shutil.rmtree(folder / "grader")
    shutil.rmtree(folder / KIT_PACKAGE)
    titles = ", ".join(f"{a.id} ({a.title})" for a in course.assignments if a.id in assignments)
    (folder / "README.txt").write_text(
        f"""\
{course.title}, module {course.module_number}: {course.module_title}
Student kit: {titles}

Your work: the files in exercises/ (or the notebooks in notebooks/, when there are any).

    python -m venv .venv && . .venv/bin/activate
    pip install checker/*.whl          # the checker: numpy, pytest and the course's grader
    grader check exercises/            # the visible checks of every exercise
    grader check notebooks/ps4b.ipynb  # a notebook is checked the same way
    grader check exercises/ --only gae_advantages

The checks are the visible tests only; the hidden tests run when your work is graded.
""",
        encoding="utf-8",
    )
    with zipfile.ZipFile(out / f"{kit_id}.zip", "w", zipfile.ZIP_DEFLATED) as archive:
        for path in sorted(folder.rglob("*")):
            if path.is_file():
                archive.write(path, Path(kit_id) / path.relative_to(folder))
    return folder


def _hash(data: bytes) -> str:
    return "sha256=" + base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode("ascii")


def write_wheel(folder: Path, name: str, dest: Path) -> Path:
    """A pure-Python wheel of ``folder/grader`` and ``folder/rl_llm_m4_kit`` (the wheel format is a zip with
    a dist-info folder; written here so that the course needs no build backend, nor the student)."""
    dist = re.sub(r"[-_.]+", "_", name).lower()
    version = grader.__version__
    info = f"{dist}-{version}.dist-info"
    files: dict[str, bytes] = {}
    for package in ("grader", KIT_PACKAGE):
        for path in sorted((folder / package).rglob("*")):
            if path.is_file():
                files[path.relative_to(folder).as_posix()] = path.read_bytes()
    files[f"{info}/METADATA"] = "".join(
        [f"Metadata-Version: 2.1\nName: {name}\nVersion: {version}\nRequires-Python: >=3.10\n"]
        + [f"Requires-Dist: {r}\n" for r in REQUIREMENTS]
    ).encode()
    files[f"{info}/WHEEL"] = b"Wheel-Version: 1.0\nGenerator: grader build\nRoot-Is-Purelib: true\nTag: py3-none-any\n"
    files[f"{info}/entry_points.txt"] = b"[console_scripts]\ngrader = grader.cli:main\n"
    files[f"{info}/top_level.txt"] = f"grader\n{KIT_PACKAGE}\n".encode()
    record = "".join(f"{rel},{_hash(data)},{len(data)}\n" for rel, data in files.items()) + f"{info}/RECORD,,\n"
    files[f"{info}/RECORD"] = record.encode()
    dest.mkdir(parents=True, exist_ok=True)
    wheel = dest / f"{dist}-{version}-py3-none-any.whl"
    with zipfile.ZipFile(wheel, "w", zipfile.ZIP_DEFLATED) as archive:
        for rel, data in files.items():
            archive.writestr(
                zipfile.ZipInfo(rel, date_time=(2020, 1, 1, 0, 0, 0)), data, compress_type=zipfile.ZIP_DEFLATED
            )
    return wheel


def write_kits(course: Course, course_dir: Path, assignments: list[str] | None = None) -> list[Path]:
    """A kit per assignment (``assignments``, default all) and one for the whole module, under
    ``<course_dir>/kit/``; the folders written."""
    out = Path(course_dir) / KIT_DIR
    out.mkdir(parents=True, exist_ok=True)
    release = Path(course_dir) / "release"
    ids = [a.id for a in course.assignments if assignments is None or a.id in assignments]
    folders = [write_kit(course, out, a, [a], release) for a in ids]
    if assignments is None:
        folders.append(write_kit(course, out, ALL, [a.id for a in course.assignments], release))
    return folders
