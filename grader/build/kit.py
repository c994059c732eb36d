"""The student kit: what a student receives, with a checker that needs neither solutions nor hidden tests.

``grader build`` writes one kit per assignment and one for the whole module into
``course-build/kit/<id>/`` (and ``<id>.zip``)::

    exercises/                 the student's work, in one folder as nbgrader releases a lab: the stubs of
                               the kit's modules and its notebooks (either may be filled in); for a lab,
                               also the modules it runs (the students' modules it imports, as stubs, and
                               the course's code), beside the lab's notebook
    checker/<name>.whl         the checker, a wheel (no build tools needed, nor a network beyond PyPI):
                               a student build of this grader (grader.edition: only `check`, `modules` and
                               `help`; the instructors' verbs are left out), and in rl_llm_m4_kit/course/
                               the course as the checker needs it: course.yaml (reduced to the kit's
                               assignments), the stubs and the course's code (exercises/), the list of
                               course-provided files, the visible tests and their pytest.ini and
                               conftest.py, nothing else. Its extra ``[notebooks]`` adds a kernel,
                               JupyterLab and matplotlib.
    README.txt                 what to run, naming only what this kit holds

The wheel's dependencies are the grader's own (pyproject.toml: its dependencies and its ``kit`` extra;
the ``notebooks`` extra for ``[notebooks]``), read from the installed grader's metadata.

Installed, ``grader check`` finds the course in the kit when no ``course.yaml`` is found around the
working directory, so it works in any folder. Nothing of ``solutions/`` or of
``autograder-tests/hidden`` (nor the mistakes, nor the worked examples) is copied; the leak check
reads every file of every kit, and the visible tests run the course's own copy of its code
(``grader.testing.course_code``), never a reference solution.
"""

from __future__ import annotations

import ast
import base64
import hashlib
import importlib.metadata
import json
import re
import shutil
import zipfile
from dataclasses import dataclass
from pathlib import Path

import yaml

import grader
from grader.core.course import KIT_MANIFEST, Course
from grader.core.staging import course_provided_files, lab_modules
from grader.core.stubs import SKIP_PARTS
from grader.errors import GraderError

KIT_DIR = "kit"
KIT_PACKAGE = "rl_llm_m4_kit"
ALL = "all"
GRADER_DISTRIBUTION = "rl-llm-m4-grader"
NOTEBOOKS_EXTRA = "notebooks"
# The instructors' verbs and the demo: not in a kit's wheel. A student build offers `check` and `modules`
# (grader.cli.STUDENT_COMMANDS), and no layer below the verbs imports a verb (tests/test_architecture.py).
INSTRUCTOR_PACKAGES = (
    "autograde",
    "build",
    "classgrade",
    "demo",
    "export",
    "grade",
    "gradescope",
    "report",
    "similarity",
    "stubs",
    "studentfeedback",
)


def kit_course_yaml(course: Course, assignments: list[str], label: str) -> str:
    data = yaml.safe_load(course.course_file.read_text(encoding="utf-8"))
    data["assignments"] = [a for a in data["assignments"] if a.get("id") in assignments]
    return (
        f"# course.yaml of {course.id} for the student kit {label} (`grader build`): no solutions, no "
        "hidden tests.\n" + yaml.safe_dump(data, sort_keys=False, allow_unicode=True)
    )


def kit_requirements() -> tuple[list[str], list[str]]:
    """(what the checker requires, what its ``notebooks`` extra adds): the grader's dependencies and its
    ``kit`` extra, and its ``notebooks`` extra, as pyproject.toml gives them (through the installed
    grader's metadata)."""
    try:
        requires = importlib.metadata.requires(GRADER_DISTRIBUTION) or []
    except importlib.metadata.PackageNotFoundError:
        raise GraderError(
            f"the grader is not installed as the package {GRADER_DISTRIBUTION} (install the course repository with pip, "
            "e.g. make demo): its dependencies are the kit's"
        ) from None
    base, extras = [], {}
    for line in requires:
        requirement, _, marker = (part.strip() for part in line.partition(";"))
        extra = re.fullmatch(r"""extra\s*==\s*["']([\w.-]+)["']""", marker)
        if extra:
            extras.setdefault(extra.group(1), []).append(requirement)
        elif "extra" in marker:
            raise GraderError(f"{GRADER_DISTRIBUTION}: a requirement the kit cannot place: {line}")
        else:
            base.append(line.strip())
    return base + extras.get("kit", []), extras.get(NOTEBOOKS_EXTRA, [])


def _copy_package(dest: Path, kit_id: str) -> None:
    """This grader, as a student build: without the instructors' verbs, and marked (grader.edition)."""
    source = Path(grader.__file__).parent

    def ignore(folder: str, names: list[str]) -> set[str]:
        skipped = {n for n in names if n in SKIP_PARTS or n.endswith(".pyc")}
        return skipped | (set(INSTRUCTOR_PACKAGES) & set(names) if Path(folder) == source else set())

    shutil.copytree(source, dest, ignore=ignore)
    (dest / "edition.py").write_text(
        '"""A student build of the grader, written by `grader build` for a student kit (see the course\'s '
        'grader/edition.py)."""\n\n'
        f"STUDENT = True\nKIT = {kit_id!r}\n",
        encoding="utf-8",
    )


@dataclass
class KitFiles:
    """What one kit's exercises/ holds, for its README."""

    modules: list[str]  # the stubs of the kit's exercises
    notebooks: list[str]  # the problem sets' notebooks
    lab_notebooks: list[str]
    runs: dict[str, tuple[str, ...]]  # lab -> the students' modules it imports
    lab_modules: list[str]  # modules beside a lab that are no exercise of this kit (stubs)
    course_code: list[str]  # course-provided files beside a lab
    sources: list[str]  # the problem sets whose notebooks' cells `grader modules` writes into those modules


def _imports(cells: list[str]) -> set[str]:
    """Flat module names that code cells import (``from gae import ...``); a cell that does not parse is skipped."""
    names: set[str] = set()
    for cell in cells:
        try:
            tree = ast.parse(cell)
        except SyntaxError:
            continue
        for node in ast.walk(tree):
            if isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
                names.add(node.module)
            elif isinstance(node, ast.Import):
                names.update(a.name for a in node.names)
    return names


def _notebook_imports(notebooks: list[Path]) -> set[str]:
    import nbformat  # the build's notebooks need it; reading the kit's course does not

    return _imports(
        [c.source for nb in notebooks for c in nbformat.read(nb, as_version=4).cells if c.cell_type == "code"]
    )


def _work_files(course: Course, assignments: list[str], notebooks: dict[str, list[Path]]) -> KitFiles:
    exercises = [e for e in course.exercises if e.assignment in assignments]
    labs = [e.function for e in exercises if e.kind == "lab"]
    with_lab = {e.assignment for e in exercises if e.kind == "lab"}
    modules = sorted({e.module for e in exercises if e.kind != "lab"})
    runs = {lab: lab_modules(course, lab) for lab in labs}
    # Beside a lab: the modules its code and its notebook import, students' and the course's.
    lab_notebooks = [nb for a in with_lab for nb in notebooks.get(a, [])]
    wanted = {m for used in runs.values() for m in used} | (_notebook_imports(lab_notebooks) if labs else set())
    graded = {e.module for e in course.exercises if e.kind != "lab"}
    sources = [
        a.id
        for a in course.assignments
        if a.id not in with_lab and any(e.module in wanted and e.kind == "function" for e in a.exercises)
    ]
    return KitFiles(
        modules=modules,
        notebooks=[nb.name for a in assignments if a not in with_lab for nb in notebooks.get(a, [])],
        lab_notebooks=[nb.name for nb in lab_notebooks],
        runs=runs,
        lab_modules=sorted(m for m in wanted & graded if m not in modules),
        course_code=sorted(rel.as_posix() for rel in course_provided_files(course)) if labs else [],
        sources=sources,
    )


def write_kit(course: Course, out: Path, kit_id: str, assignments: list[str], release: Path | None = None) -> Path:
    """One kit (folder and zip) for ``assignments``; returns its folder."""
    folder = out / kit_id
    if folder.exists():
        shutil.rmtree(folder)
    notebooks = {
        a: sorted((release / a).glob("*.ipynb")) if release is not None and (release / a).is_dir() else []
        for a in assignments
    }
    files = _work_files(course, assignments, notebooks)
    work = folder / "exercises"
    work.mkdir(parents=True)
    for name in [f"{m}.py" for m in files.modules + files.lab_modules] + files.course_code:
        (work / name).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy(course.exercises_dir / name, work / name)
    for nb in (nb for found in notebooks.values() for nb in found):
        shutil.copy(nb, work / nb.name)
    _write_course_data(course, folder / KIT_PACKAGE, kit_id, assignments, files)
    _copy_package(folder / "grader", kit_id)
    wheel = write_wheel(folder, f"{course.id}-student-kit-{kit_id}", folder / "checker")
    shutil.rmtree(folder / "grader")
    shutil.rmtree(folder / KIT_PACKAGE)
    (folder / "README.txt").write_text(kit_readme(course, kit_id, assignments, wheel.name, files), encoding="utf-8")
    with zipfile.ZipFile(out / f"{kit_id}.zip", "w", zipfile.ZIP_DEFLATED) as archive:
        for path in sorted(folder.rglob("*")):
            if path.is_file():
                archive.write(path, Path(kit_id) / path.relative_to(folder))
    return folder


def _write_course_data(course: Course, package: Path, kit_id: str, assignments: list[str], files: KitFiles) -> None:
    """``package``/course/: the course as the checker needs it, and nothing hidden. Its course.yaml holds the
    kit's assignments and those whose modules the kit's lab runs (``grader modules`` writes those modules
    from their notebooks); ``grader check`` checks the kit's own (the manifest says which)."""
    data = package / "course"
    (data / "exercises").mkdir(parents=True)
    (data / "autograder-tests" / "visible").mkdir(parents=True)
    held = [a.id for a in course.assignments if a.id in assignments or a.id in files.sources]
    (data / "course.yaml").write_text(kit_course_yaml(course, held, kit_id), encoding="utf-8")
    for path in sorted(course.exercises_dir.glob("*.py")):
        # Every stub and course file: a module's prelude, and lab code, may import another module.
        shutil.copy(path, data / "exercises" / path.name)
    # Which kit, its own assignments, and which files grading takes from the course whatever a submission
    # holds: the kit's course.yaml alone cannot tell (a lab's kit holds no exercise of the lab's code).
    manifest = {
        "kit": kit_id,
        "assignments": assignments,
        "provided": [rel.as_posix() for rel in course_provided_files(course)],
    }
    (data / KIT_MANIFEST).write_text(json.dumps(manifest, indent=1) + "\n", encoding="utf-8")
    for name in ("pytest.ini", "conftest.py"):  # how the tests run (the plugin that gives them `impl`)
        if (course.tests_dir / name).is_file():
            shutil.copy(course.tests_dir / name, data / "autograder-tests" / name)
    for e in course.exercises:
        visible = course.visible_test_file(e.function)
        if e.assignment in held and e.visible and visible.is_file():
            shutil.copy(visible, data / "autograder-tests" / "visible" / visible.name)
    (package / "__init__.py").write_text(
        f'"""The course {course.id} as the student checker needs it (no solutions, no hidden tests)."""\n',
        encoding="utf-8",
    )


def kit_readme(course: Course, kit_id: str, assignments: list[str], wheel: str, files: KitFiles) -> str:
    """README.txt of a kit: what it holds and the commands, step by step, naming only this kit's files."""
    titles = "\n".join(f"  {a.id}: {a.title}" for a in course.assignments if a.id in assignments)
    functions = [e.function for e in course.exercises if e.assignment in assignments and e.kind != "lab"]
    example = functions[0] if functions else next(iter(files.runs), "")
    text = f"""\
{course.title}, module {course.module_number}: {course.module_title}
Student kit {kit_id}:
{titles}

What is here
{_held(files)}
  checker/     the checker: the `grader` command and the course's visible tests

Set up once (Python 3.10 or later), in this folder:
    python3 -m venv .venv
    . .venv/bin/activate                  (Windows: .venv\\Scripts\\activate)
    pip install "checker/{wheel}[{NOTEBOOKS_EXTRA}]"
  [{NOTEBOOKS_EXTRA}] adds JupyterLab, a Python kernel and matplotlib for the notebooks. Without it
  only the checker (numpy, pytest, ...) is installed: pip install checker/{wheel}

Check your work with the visible tests (in this folder, the environment activated):
    grader check                          every exercise of this kit, in exercises/
"""
    text += "".join(f"    {'grader check exercises/' + nb:<38}one notebook\n" for nb in files.notebooks[:1])
    text += "".join(
        f"    {'grader check exercises/' + nb:<38}the lab, with the modules beside it\n" for nb in files.lab_notebooks
    )
    text += f"    grader check --only {example}\n" if example else ""
    text += "    grader help                           what else the checker does\n"
    if files.notebooks or files.lab_notebooks:
        text += """
Work in the notebooks:
    jupyter lab exercises/                each exercise has a check cell: run it after your cell
"""
    if files.runs:
        text += _lab_readme(files)
    return text + "\nThese are the visible tests only; the hidden tests run when your work is graded.\n"


def _held(files: KitFiles) -> str:
    """The lines of 'What is here' about exercises/."""
    rows = []
    if files.modules:
        rows.append((", ".join(m + ".py" for m in files.modules), "the exercises: fill in each function or answer"))
    if files.notebooks:
        rows.append(
            (
                ", ".join(files.notebooks),
                "the same exercises as notebooks (either route: per exercise, the one you\n"
                "implemented is checked, the .py module when both are)",
            )
        )
    if files.lab_notebooks:
        rows.append((", ".join(files.lab_notebooks), "the lab: it runs your modules and the course's code below"))
    if files.lab_modules:
        rows.append(
            (
                ", ".join(m + ".py" for m in files.lab_modules),
                "your modules from the problem sets (stubs until you put yours here)",
            )
        )
    if files.course_code:
        rows.append(
            (", ".join(files.course_code), "the course's code the lab runs (grading uses the course's own copy)")
        )
    lines = ["  exercises/   your work, in one folder:"]
    for what, why in rows:
        lines.append(f"    {what}")
        lines += [f"        {part}" for part in why.split("\n")]
    return "\n".join(lines)


def _lab_readme(files: KitFiles) -> str:
    runs = "".join(f"    {lab}: {', '.join(m + '.py' for m in used)}\n" for lab, used in files.runs.items())
    # The release names each notebook after its assignment (grader.notebooks.coursedir.write_source).
    notebooks = [f"{a}.ipynb" for a in files.sources]
    here = all(nb in files.notebooks for nb in notebooks)  # this kit holds the problem sets' notebooks
    folder = "exercises/" if here else "PATH/"
    write = f"    grader modules {' '.join(folder + nb for nb in notebooks)} --out exercises/\n"
    where = "" if here else "  (PATH: where your problem-set notebooks are)\n"
    return f"""
The lab runs your functions from the .py modules in exercises/:
{runs}  Put your finished modules from the problem sets there, or write them from your problem-set
  notebooks (each module: the course's code, then your solution cells as they are; it replaces
  the module that is there):
{write}{where}  Then run the lab's notebook from top to bottom (Kernel > Restart Kernel and Run All Cells).
"""


def _hash(data: bytes) -> str:
    return "sha256=" + base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode("ascii")


def write_wheel(folder: Path, name: str, dest: Path) -> Path:
    """A pure-Python wheel of ``folder/grader`` and ``folder/rl_llm_m4_kit`` (the wheel format is a zip with
    a dist-info folder; written here so that the course needs no build backend, nor the student)."""
    dist = re.sub(r"[-_.]+", "_", name).lower()
    version = grader.__version__
    info = f"{dist}-{version}.dist-info"
    requires, notebooks = kit_requirements()
    files: dict[str, bytes] = {}
    for package in ("grader", KIT_PACKAGE):
        for path in sorted((folder / package).rglob("*")):
            if path.is_file():
                files[path.relative_to(folder).as_posix()] = path.read_bytes()
    files[f"{info}/METADATA"] = "".join(
        [f"Metadata-Version: 2.1\nName: {name}\nVersion: {version}\nRequires-Python: >=3.10\n"]
        + [f"Requires-Dist: {r}\n" for r in requires]
        + [f"Provides-Extra: {NOTEBOOKS_EXTRA}\n"]
        + [f'Requires-Dist: {r}; extra == "{NOTEBOOKS_EXTRA}"\n' for r in notebooks]
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
