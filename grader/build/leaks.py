"""The leak check: nothing students receive may carry a solution, a hidden test or a hidden answer.

What students receive: ``release/`` and ``exercises/`` (every kind of leak below), and the
feedback of ``nbgrader generate_feedback`` (every kind too, except the lines the student
handed in: feedback shows each student their own code, which may well be the solution's).

Three kinds of leak, each compared line by line with what is public anyway
(the stubs of ``exercises/``, the visible tests):

- a **solution line**: a line of a solution region of ``solutions/``;
- **hidden-test code**: a line of ``autograder-tests/hidden/`` or of the known mistakes the
  grader diagnoses with (``autograder-tests/mistakes/``, wrong implementations: course material);
- a **hidden expected value**: a number of ``autograder-tests/worked_examples.yaml``
  (``expected``) that no visible test, stub or docstring shows.

Lines are compared by a fingerprint that ignores whitespace, comment markers and
the contents of string literals, so a reformatted or commented-out copy is still
found, while a misconception message (a string, meant to be shown) is not code.
Only fingerprints of at least :data:`MIN_FINGERPRINT` characters count: short
lines such as ``return result`` prove nothing.
"""

from __future__ import annotations

import dataclasses
import html
import json
import math
import os
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Iterable, Iterator

import yaml

from grader.build.kit import KIT_DIR
from grader.build.written import rubric_lines
from grader.core.course import BEGIN_SOLUTION, END_SOLUTION, Course
from grader.core.diagnosis import MISTAKES_DIR
from grader.notebooks.cells import helper_source
from grader.notebooks.coursedir import student_module_files
from grader.notebooks.extract import MAX_NOTEBOOK_BYTES, read_notebook, solution_cells
from grader.untrusted import UntrustedFile, read_regular, refused_entries, shown

MIN_FINGERPRINT = 20
STRING = re.compile(r"(?:[rbfuRBFU]{0,2})(\"\"\"|'''|\"|')(?:\\.|(?!\1).)*?\1")
NUMBER = re.compile(r"(?<![\w.])-?\d+\.\d+(?:[eE][-+]?\d+)?(?!\w|\.\d)")
IMPORT = re.compile(r"^(import|from)\s")
KINDS = ("solution", "hidden-test", "hidden-value")


@dataclass(frozen=True)
class Leak:
    path: str
    where: str
    kind: str
    text: str

    def __str__(self) -> str:
        return f"{self.path}:{self.where}: {self.kind}: {self.text.strip()[:100]}"


def fingerprint(line: str) -> str:
    """A line without whitespace, comment markers or string contents."""
    text = line.strip().lstrip("#").strip()
    text = STRING.sub("S", text)
    text = text.split("#", 1)[0]
    return re.sub(r"\s+", "", text)


def fingerprints(lines: Iterable[str]) -> set[str]:
    """Fingerprints worth comparing: long enough, and not imports (every file has those)."""
    found = set()
    for line in lines:
        fp = fingerprint(line)
        if len(fp) >= MIN_FINGERPRINT and not IMPORT.match(line.strip().lstrip("#").strip()):
            found.add(fp)
    return found


def solution_region_lines(source: str) -> list[str]:
    out, inside = [], False
    for line in source.splitlines():
        marker = line.strip()
        if marker == BEGIN_SOLUTION:
            inside = True
        elif marker == END_SOLUTION:
            inside = False
        elif inside:
            out.append(line)
    return out


def _numbers(value) -> Iterator[float]:
    if isinstance(value, bool) or value is None:
        return
    if isinstance(value, (int, float)):
        yield float(value)
    elif isinstance(value, (list, tuple)):
        for v in value:
            yield from _numbers(v)
    elif isinstance(value, dict):
        for v in value.values():
            yield from _numbers(v)


def distinctive(x: float) -> bool:
    """A value worth looking for: not an integer and not a multiple of one half."""
    return math.isfinite(x) and x != round(x) and x * 2 != round(x * 2)


def decimals(x: float) -> int:
    text = repr(float(x))
    return 0 if "e" in text or "." not in text else len(text.split(".")[1].rstrip("0"))


@dataclass(frozen=True)
class HiddenValue:
    """An expected number of a worked example. A *strong* one (two or more decimals, or the
    example's only number) is a leak on its own; a weak one (a short number such as -1.2 also
    turns up by coincidence) only together with another number of the same example."""

    value: float
    example: str
    strong: bool


def literal_matches(literal: str, value: float) -> bool:
    """Does a number written in a text show ``value`` (exactly, or rounded to 3+ decimals)?"""
    try:
        shown = float(literal)
    except ValueError:
        return False
    if shown == value:
        return True
    decimals = len(literal.split(".", 1)[1].split("e")[0].split("E")[0]) if "." in literal else 0
    return decimals >= 3 and abs(shown - value) <= 0.5 * 10**-decimals + 1e-15


@dataclass
class Secrets:
    """What must not leak, as fingerprints and numbers."""

    solution: set[str]
    hidden: set[str]
    values: list[HiddenValue]


def hidden_test_files(course: Course) -> list[Path]:
    return sorted(course.hidden_tests_dir.glob("*.py")) if course.hidden_tests_dir.is_dir() else []


def known_mistake_files(course: Course) -> list[Path]:
    """The wrong implementations grader.core.diagnosis names mistakes with: never released."""
    folder = course.tests_dir / MISTAKES_DIR
    return sorted(folder.rglob("*.py")) if folder.is_dir() else []


def course_secrets(course: Course) -> Secrets:
    """Solution lines, hidden-test lines and hidden values, minus everything public."""
    public_lines: list[str] = []
    for content in student_module_files(course).values():
        try:
            public_lines += content.decode("utf-8").splitlines()
        except UnicodeDecodeError:
            continue
    visible_dir = course.visible_tests_dir
    for path in sorted(visible_dir.glob("*.py")) if visible_dir.is_dir() else []:
        public_lines += path.read_text(encoding="utf-8").splitlines()

    public_lines += helper_source().splitlines()  # the notebooks' course-provided helper
    public = fingerprints(public_lines)

    region_lines: list[str] = []
    for path in sorted(course.solutions_dir.rglob("*.py")):
        if "__pycache__" not in path.parts:
            region_lines += solution_region_lines(path.read_text(encoding="utf-8"))
    hidden_lines: list[str] = []
    for path in hidden_test_files(course):
        hidden_lines += path.read_text(encoding="utf-8").splitlines()
    mistake_lines: list[str] = []
    for path in known_mistake_files(course):
        mistake_lines += path.read_text(encoding="utf-8").splitlines()

    public_numbers = [float(n) for n in NUMBER.findall("\n".join(public_lines))]
    values: list[HiddenValue] = []
    examples = course.tests_dir / "worked_examples.yaml"
    if examples.is_file():
        data = yaml.safe_load(examples.read_text(encoding="utf-8")) or {}
        for function, entries in data.items() if isinstance(data, dict) else []:
            for entry in entries or []:
                if not isinstance(entry, dict):
                    continue
                # A number the example also takes as input reveals nothing about the answer.
                shown = public_numbers + list(_numbers(entry.get("args")))
                expected = list(_numbers(entry.get("expected")))
                label = f"{function}/{entry.get('name', '?')}"
                for x in dict.fromkeys(expected):
                    if distinctive(x) and not any(math.isclose(x, p, rel_tol=1e-9, abs_tol=1e-12) for p in shown):
                        values.append(HiddenValue(x, label, decimals(x) >= 2 or len(expected) == 1))

    region_lines += rubric_lines(course)  # the written answers' rubrics are for graders only
    solution = fingerprints(region_lines)
    # A known mistake's lines that it shares with the solution tell nothing more than the solution
    # (which feedback may show: it is the student's own code); its other lines are hidden.
    hidden = fingerprints(hidden_lines) | (fingerprints(mistake_lines) - solution)
    return Secrets(solution=solution - public, hidden=hidden - public, values=values)


# -- reading what students receive ------------------------------------------------------
def text_units(path: Path) -> Iterator[tuple[str, list[str]]]:
    """(location, lines) of a file: one unit per notebook cell and output, one for other text files."""
    if path.suffix == ".ipynb":
        try:
            nb = json.loads(path.read_text(encoding="utf-8"))
        except (ValueError, UnicodeDecodeError):
            yield "", path.read_text(encoding="utf-8", errors="replace").splitlines()
            return
        for i, cell in enumerate(nb.get("cells", []), start=1):
            source = cell.get("source", "")
            source = "".join(source) if isinstance(source, list) else source
            yield f"cell {i}", source.splitlines()
            for output in cell.get("outputs", []):
                texts = (
                    [output.get("text", "")] + list((output.get("data") or {}).values()) + output.get("traceback", [])
                )
                for text in texts:
                    text = "".join(text) if isinstance(text, list) else str(text)
                    yield f"cell {i} output", text.splitlines()
        return
    try:
        text = path.read_text(encoding="utf-8")
    except (UnicodeDecodeError, OSError):
        return
    if path.suffix in (".html", ".htm"):
        text = html.unescape(re.sub(r"<[^>]+>", "", text))
    yield "", text.splitlines()


def hidden_values_in(line: str, values: list[HiddenValue]) -> bool:
    """Does ``line`` show a strong hidden value, or two values of the same example?"""
    weak: dict[str, set[float]] = {}
    for literal in NUMBER.findall(line):
        for v in values:
            if literal_matches(literal, v.value):
                if v.strong:
                    return True
                weak.setdefault(v.example, set()).add(v.value)
    return any(len(found) >= 2 for found in weak.values())


def scan_file(path: Path, secrets: Secrets, label: str, kinds: tuple[str, ...] = KINDS) -> list[Leak]:
    leaks = []
    for unit, lines in text_units(path):
        for number, line in enumerate(lines, start=1):
            where = f"{unit} line {number}" if unit else f"{number}"
            fp = fingerprint(line)
            if "solution" in kinds and fp in secrets.solution:
                leaks.append(Leak(label, where, "solution line", line))
            elif "hidden-test" in kinds and fp in secrets.hidden:
                leaks.append(Leak(label, where, "hidden-test code", line))
            if "hidden-value" in kinds and hidden_values_in(line, secrets.values):
                leaks.append(Leak(label, where, "hidden expected value", line))
    return leaks


def _files(root: Path) -> Iterator[tuple[Path, str | None]]:
    """(path, None) for each regular file under ``root``, (path, what it is) for each entry that
    is not one (a link, never followed, or a pipe): in a fixed order, caches left out."""
    for path, what in refused_entries(root):
        yield path, what
    for folder, dirs, files in os.walk(root):  # never enters a linked folder
        dirs[:] = sorted(d for d in dirs if d not in ("__pycache__", ".ipynb_checkpoints"))
        for name in sorted(files):
            path = Path(folder) / name
            if path.is_file() and not path.is_symlink():
                yield path, None


def scan_tree(
    root: Path,
    secrets: Secrets,
    label_root: Path,
    kinds: tuple[str, ...] = KINDS,
    suffixes: tuple[str, ...] | None = None,
) -> list[Leak]:
    """Leaks in the files under ``root``; a link there is a leak of its own (whatever it points
    at reaches whoever receives the folder)."""
    leaks = []
    for path, what in sorted(_files(root)):
        label = shown(path.relative_to(label_root).as_posix(), 200)
        if what is not None:
            leaks.append(Leak(label, "", "link" if what == "a symbolic link" else "not a file", what))
        elif suffixes is None or path.suffix in suffixes:
            leaks += scan_file(path, secrets, label, kinds)
    return leaks


def student_lines(folder: Path, label_root: Path, read: bool = True) -> tuple[list[str], list[Leak]]:
    """What a student wrote in a submission folder (the solution cells of its notebooks and its
    .py files; none unless ``read``), and a :class:`Leak` for every link in it: a link is never
    read as the student's own code (a link to the hidden tests would make them look like it)."""
    lines: list[str] = []
    links: list[Leak] = []
    if not folder.is_dir() or folder.is_symlink():
        return lines, links
    for path, what in sorted(_files(folder)):
        if what is not None:
            links.append(
                Leak(
                    shown(path.relative_to(label_root).as_posix(), 200),
                    "",
                    "link" if what == "a symbolic link" else "not a file",
                    f"a student file that is {what}",
                )
            )
        elif not read:
            continue
        elif path.suffix == ".py":
            try:
                lines += read_regular(path, MAX_NOTEBOOK_BYTES).decode("utf-8").splitlines()
            except (UntrustedFile, OSError, UnicodeDecodeError):
                continue
        elif path.suffix == ".ipynb":
            nb, _ = read_notebook(path)
            for source in solution_cells(nb).values() if nb is not None else []:
                lines += source.splitlines()
    return lines, links


def feedback_leaks(course_dir: Path, secrets: Secrets) -> list[Leak]:
    """Solution lines, hidden-test code and hidden values in ``<course_dir>/feedback/<student>/<assignment>/``.

    A line the student handed in (``submitted/``, or the notebook nbgrader graded,
    ``autograded/``, when the submission is gone) is theirs to see, even where it is a line of
    the solution or looks like one of a hidden test. ``submitted/`` comes first: what nbgrader
    copied into ``autograded/`` through a link a student planted is not the student's.
    A link in ``autograded/`` or in the feedback is reported; no link counts as the student's code.
    """
    course_dir = Path(course_dir)
    root = course_dir / "feedback"
    leaks: list[Leak] = []
    if not root.is_dir():
        return leaks
    for folder in sorted(p for p in root.glob("*/*") if p.is_dir()):
        student, assignment = folder.parent.name, folder.name
        graded = course_dir / "autograded" / student / assignment
        submitted = course_dir / "submitted" / student / assignment
        handed_in = submitted.exists() or submitted.is_symlink()
        lines, links = student_lines(graded, course_dir, read=not handed_in)
        if handed_in:
            lines, _ = student_lines(submitted, course_dir)  # a linked folder holds no line of theirs
        own = fingerprints(lines)
        theirs = Secrets(solution=secrets.solution - own, hidden=secrets.hidden - own, values=secrets.values)
        leaks += links + scan_tree(folder, theirs, course_dir)
    return leaks


def check_leaks(course: Course, course_dir: Path | None = None) -> list[Leak]:
    """Leaks in ``<course_dir>/release/``, in ``<course_dir>/feedback/`` (see :func:`feedback_leaks`),
    in the student files of ``exercises/`` and in the student kits (:func:`kit_leaks`)."""
    secrets = course_secrets(course)
    leaks: list[Leak] = []
    if course_dir is not None and (Path(course_dir) / "release").is_dir():
        leaks += scan_tree(Path(course_dir) / "release", secrets, Path(course_dir))
    if course_dir is not None:
        leaks += feedback_leaks(Path(course_dir), secrets)
    if course.exercises_dir.is_dir():
        leaks += scan_tree(course.exercises_dir, secrets, course.root, suffixes=(".py", ".ipynb", ".md", ".txt"))
    if course_dir is not None:
        leaks += kit_leaks(Path(course_dir), secrets)
    return leaks


def kit_leaks(course_dir: Path, secrets: Secrets) -> list[Leak]:
    """Leaks in the student kits (``<course_dir>/kit/``): every file but the grader's own code (the
    same package Gradescope receives), the checker wheel's course data included, and any file
    named like a solution, a hidden test, a known mistake or the worked examples."""
    import tempfile
    import zipfile

    root = course_dir / KIT_DIR
    leaks: list[Leak] = []

    def hidden_name(rel: tuple[str, ...]) -> bool:
        return bool({"solutions", "hidden", "mistakes"} & set(rel)) or rel[-1] in (
            "worked_examples.yaml",
            "written.yaml",
        )

    for kit in sorted(p for p in root.iterdir() if p.is_dir()) if root.is_dir() else []:
        leaks += scan_tree(kit, secrets, course_dir, suffixes=(".py", ".ipynb", ".md", ".txt", ".yaml", ".toml"))
        for path in kit.rglob("*"):
            if hidden_name(path.relative_to(kit).parts):
                leaks.append(
                    Leak(
                        shown(path.relative_to(course_dir).as_posix(), 200),
                        "",
                        "hidden file",
                        "a file of the course's solutions or hidden tests",
                    )
                )
        for wheel in sorted(kit.rglob("*.whl")):
            with zipfile.ZipFile(wheel) as archive, tempfile.TemporaryDirectory() as tmp:
                for name in archive.namelist():
                    parts = tuple(name.split("/"))
                    if hidden_name(parts):
                        leaks.append(
                            Leak(
                                f"{shown(wheel.name)}/{shown(name, 200)}",
                                "",
                                "hidden file",
                                "a file of the course's solutions or hidden tests",
                            )
                        )
                    if parts[0] != "grader" and not name.endswith("/"):
                        target = Path(tmp).joinpath(*[p for p in parts if p not in ("", ".", "..")])
                        target.parent.mkdir(parents=True, exist_ok=True)
                        target.write_bytes(archive.read(name))
                inside = shown(wheel.relative_to(course_dir).as_posix())
                leaks += [
                    dataclasses.replace(leak, path=f"{inside}/{leak.path}")
                    for leak in scan_tree(Path(tmp), secrets, Path(tmp))
                ]
    return leaks
