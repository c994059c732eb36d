"""The nbgrader course directory: its config, its source/ folders and a build manifest.

Everything here is generated from course.yaml, solutions/ and autograder-tests/;
``grader build`` rewrites it, nobody edits it by hand.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
from dataclasses import dataclass, field, fields
from pathlib import Path
from typing import Iterable

import nbformat

from grader.core.course import Assignment, Course, is_lab
from grader.core.staging import course_provided_files
from grader.core.stubs import generate

MANIFEST = ".grader-build.json"
CONFIG = "nbgrader_config.py"
# nbgrader_config.py is generated, except below this line: the instructor's own settings.
OWN_SETTINGS = "# --- Your own settings: `grader build` keeps everything below this line. ---"
DB_SETTING = "c.CourseDirectory.db_url"
OWN_SETTINGS_TEMPLATE = """\
# A gradebook shared by a teaching team (nbgrader's FAQ: not SQLite once several people grade
# at once), e.g. PostgreSQL; `grader build --db URL` writes this line for you:
# c.CourseDirectory.db_url = "postgresql://grader@db.example.org/rl_llm_m4"
"""

# nbgrader's default preprocessor lists with one step swapped for the course's own:
# ClearSolutions -> StubSolutions (stubs name their function, as in exercises/) and
# Execute -> TrustedGrade (hidden tests run in the trusted grader, never in the kernel).
# SanitizeStudentHTML cleans what nbconvert would render of a student's (autograde, feedback).
GENERATE_PREPROCESSORS = [
    "nbgrader.preprocessors.IncludeHeaderFooter",
    "nbgrader.preprocessors.InstantiateTests",
    "nbgrader.preprocessors.LockCells",
    "grader.build.preprocessors.StubSolutions",
    "nbgrader.preprocessors.ClearOutput",
    "nbgrader.preprocessors.CheckCellMetadata",
    "nbgrader.preprocessors.ComputeChecksums",
    "nbgrader.preprocessors.SaveCells",
    "nbgrader.preprocessors.ClearHiddenTests",
    "nbgrader.preprocessors.ClearMarkScheme",
    "nbgrader.preprocessors.ComputeChecksums",
    "nbgrader.preprocessors.CheckCellMetadata",
]
AUTOGRADE_PREPROCESSORS = [
    "grader.autograde.preprocessors.TrustedGrade",
    "grader.autograde.preprocessors.SanitizeStudentHTML",
    "nbgrader.preprocessors.IgnorePattern",
    "nbconvert.preprocessors.ClearMetadataPreprocessor",
    "nbgrader.preprocessors.LimitOutput",
    "nbgrader.preprocessors.SaveAutoGrades",
    "nbgrader.preprocessors.AssignLatePenalties",
    "nbgrader.preprocessors.CheckCellMetadata",
]
LATE_PLUGIN = "grader.autograde.late.CourseLatePolicy"
# nbgrader's Autograde.sanitize_preprocessors, OverwriteCells quiet about cells exactly as released.
SANITIZE_PREPROCESSORS = [
    "nbgrader.preprocessors.ClearOutput",
    "nbgrader.preprocessors.DeduplicateIds",
    "nbgrader.preprocessors.OverwriteKernelspec",
    "grader.autograde.preprocessors.OverwriteReleasedCells",
    "nbgrader.preprocessors.CheckCellMetadata",
]
FEEDBACK_PREPROCESSORS = [
    "grader.autograde.preprocessors.SanitizeStudentHTML",
    "nbgrader.preprocessors.GetGrades",
    "grader.autograde.preprocessors.HideHiddenTests",
    "nbconvert.preprocessors.CSSHTMLHeaderPreprocessor",
    "grader.autograde.preprocessors.WrapFeedback",  # after the CSS header, which replaces the page's CSS
]


@dataclass
class BuiltAssignment:
    """What the build made of one assignment (kept in the manifest for autograde)."""

    id: str
    notebook: str
    functions: list[str]
    lab: bool
    student_modules: list[str] = field(default_factory=list)
    provided_files: list[str] = field(default_factory=list)


def student_module_files(course: Course) -> dict[str, bytes]:
    """exercises/ as `grader stubs` would write it: relative path -> content."""
    return {rel.as_posix(): content for rel, content in generate(course).items()}


def split_supplementary(course: Course, files: Iterable[str]) -> tuple[list[str], list[str]]:
    """(student modules, course-provided files) among ``files``, the files students receive for a lab.

    Course-provided means what grading takes from the course, never from a submission
    (:func:`grader.core.staging.course_provided_files`).
    """
    provided = {rel.as_posix() for rel in course_provided_files(course)}
    files = sorted(files)
    return [rel for rel in files if rel not in provided], [rel for rel in files if rel in provided]


def course_root_expression(course: Course, course_dir: Path) -> str:
    """How nbgrader_config.py names the course repository: relative to the config file when the
    course directory lies inside the repository (so moving or mounting the repository elsewhere
    keeps it right), else absolute."""
    root, here = Path(course.root).resolve(), Path(course_dir).resolve()
    if not here.is_relative_to(root):
        return repr(str(root))
    rel = Path(os.path.relpath(root, here)).as_posix()
    return f"os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), {rel!r}))"


def own_settings(course_dir: Path, db_url: str | None = None) -> str:
    """The instructor's part of ``course_dir``'s nbgrader_config.py, kept from the current file.

    ``db_url`` replaces the gradebook setting. A file written before this part existed keeps
    its ``c.CourseDirectory.db_url`` line: a rebuild never silently moves the gradebook.
    """
    path = Path(course_dir) / CONFIG
    current = path.read_text(encoding="utf-8") if path.is_file() else ""
    if OWN_SETTINGS in current:
        text = current.split(OWN_SETTINGS, 1)[1].lstrip("\n")
    else:
        kept = [line for line in current.splitlines() if line.startswith(DB_SETTING)]
        text = OWN_SETTINGS_TEMPLATE + "".join(line + "\n" for line in kept)
    if db_url:
        lines = [line for line in text.splitlines() if not line.lstrip().startswith(DB_SETTING)]
        text = "".join(line + "\n" for line in lines) + f"{DB_SETTING} = {db_url!r}\n"
    return text


def config_text(
    course: Course, built: list[BuiltAssignment], course_dir: Path, own: str = OWN_SETTINGS_TEMPLATE
) -> str:
    """nbgrader_config.py for the course directory; ``own`` is the instructor's part (:func:`own_settings`)."""
    exclude = {b.id: b.student_modules for b in built if b.lab}
    root = course_root_expression(course, course_dir)
    lines = [
        "# Generated by `grader build` from course.yaml: edit the course and rebuild, not this file.",
        "import os",
        "",
        "c = get_config()  # noqa: F821",
        "c.CourseDirectory.root = os.path.dirname(os.path.abspath(__file__))",
        f"c.CourseDirectory.course_id = {course.id!r}",
        "",
        "# Release: solution cells become the same stubs as exercises/ (they name their function).",
        f"c.GenerateAssignment.preprocessors = {GENERATE_PREPROCESSORS!r}",
        f"c.StubSolutions.course_root = {root}",
        "",
        "# Autograde: the hidden tests never run in the student's kernel. TrustedGrade replaces",
        "# Execute and fills each autograded cell from the trusted grader (`grader autograde`).",
        f"c.Autograde.autograde_preprocessors = {AUTOGRADE_PREPROCESSORS!r}",
        "# A locked cell exactly as released (its hidden tests cut out) is no tampering: no warning.",
        f"c.Autograde.sanitize_preprocessors = {SANITIZE_PREPROCESSORS!r}",
        f"c.TrustedGrade.course_root = {root}",
        "# A deleted check cell comes back from the gradebook, so every exercise gets a grade.",
        "c.OverwriteCells.add_missing_cells = True",
        "# Labs are graded from the student's .py modules: keep them, overwrite only the course's files.",
        f"c.Autograde.exclude_overwriting = {exclude!r}",
        "",
        "# Late work: the course's late policy (course.yaml calendar.late_policy); due dates are in the",
        "# gradebook (course.yaml assignments[].due, written by `grader build` and `grader autograde`);",
        "# each student's extension (calendar.extensions) is read from the course when a penalty is set.",
        *(
            [
                f"c.AssignLatePenalties.plugin_class = {LATE_PLUGIN!r}",
                f"c.CourseLatePolicy.per_day = {course.late_policy['per_day']!r}",
                f"c.CourseLatePolicy.zero_after_days = {course.late_policy['zero_after_days']!r}",
                f"c.CourseLatePolicy.course_root = {root}",
            ]
            if course.late_policy
            else ["# (no late policy: nbgrader's default, no penalty)"]
        ),
        "",
        "# Feedback: scores and misconception messages; the hidden tests are cut out, and no HTML",
        "# of a student's can run script (SanitizeStudentHTML, also in autograde: formgrader).",
        f"c.GenerateFeedback.preprocessors = {FEEDBACK_PREPROCESSORS!r}",
        "",
        "# nbgrader 0.9 builds a submission's rows before adding them to its session, which SQLAlchemy 2",
        '# reports as SAWarning ("... not in session, add operation ... will not proceed") though every row',
        "# is added right after: nothing anyone can act on, so plain `nbgrader autograde` does not print it.",
        "import warnings",
        "",
        'warnings.filterwarnings("ignore", message=r"Object of type <Submitted\\w+> not in session", module="nbgrader")',
        "",
        OWN_SETTINGS,
    ]
    return "\n".join(lines) + "\n" + own


def write_source(
    course: Course, course_dir: Path, assignment: Assignment, nb: nbformat.NotebookNode
) -> BuiltAssignment:
    """source/<assignment>/: the notebook and, for a lab, the modules students receive."""
    folder = course_dir / "source" / assignment.id
    if folder.exists():
        shutil.rmtree(folder)
    folder.mkdir(parents=True)
    notebook = f"{assignment.id}.ipynb"
    nbformat.write(nb, folder / notebook)
    built = BuiltAssignment(
        id=assignment.id,
        notebook=notebook,
        functions=[e.function for e in assignment.exercises],
        lab=is_lab(assignment),
    )
    if built.lab:
        # Student modules are released as stubs (exercises/), never as solutions/.
        files = student_module_files(course)
        built.student_modules, built.provided_files = split_supplementary(course, files)
        for rel, content in files.items():
            (folder / rel).parent.mkdir(parents=True, exist_ok=True)
            (folder / rel).write_bytes(content)
    return built


def inputs_digest(course: Course) -> dict[str, str]:
    """sha256 of everything a build is made from, per file (to tell when a build is stale)."""
    digests = {}
    paths = [
        course.course_file,
        *sorted(course.solutions_dir.rglob("*.py")),
        *sorted(course.tests_dir.rglob("*.py")),
        *sorted(course.tests_dir.rglob("*.yaml")),
        *sorted((course.root / "notebooks").glob("*")),
    ]
    for path in paths:
        if path.is_file() and "__pycache__" not in path.parts:
            digests[path.relative_to(course.root).as_posix()] = hashlib.sha256(path.read_bytes()).hexdigest()
    return digests


def write_manifest(course: Course, course_dir: Path, built: list[BuiltAssignment], skipped: dict[str, str]) -> None:
    data = {
        "course_id": course.id,
        "assignments": {b.id: b.__dict__ for b in built},
        "skipped": skipped,
        "inputs": inputs_digest(course),
    }
    (course_dir / MANIFEST).write_text(json.dumps(data, indent=1, sort_keys=True) + "\n", encoding="utf-8")


def read_manifest(course_dir: Path) -> dict:
    path = course_dir / MANIFEST
    if not path.is_file():
        return {}
    return json.loads(path.read_text(encoding="utf-8"))


def built_assignments(course_dir: Path) -> dict[str, BuiltAssignment]:
    """What earlier builds of ``course_dir`` recorded, per assignment id."""
    known = {f.name for f in fields(BuiltAssignment)}
    return {
        aid: BuiltAssignment(**{k: v for k, v in data.items() if k in known})
        for aid, data in read_manifest(course_dir).get("assignments", {}).items()
    }


def stale_inputs(course: Course, course_dir: Path) -> list[str]:
    """Course files that changed since the last `grader build` of ``course_dir``."""
    recorded = read_manifest(course_dir).get("inputs", {})
    current = inputs_digest(course)
    return sorted(k for k in set(recorded) | set(current) if recorded.get(k) != current.get(k))
