"""From a submitted notebook to modules shaped like ``exercises/``.

Only the solution cells count, found by their grade id (the exercise's name);
every other cell a student wrote or changed is ignored. Each module is the
course-provided code of the course (never the student's copy of it) followed by
the student's cells. Each cell runs on its own when the module is imported
(:data:`CELL_RUNNER`): a cell that does not compile is left out with a note, and one that
fails when it runs (a print of an undefined name, a failing call or assert) is kept in the
module's ``__cell_errors__``; the worker then answers for that cell's exercise with the
cell's error. Either costs only its own exercise. For a lab, the student's ``.py``
modules from the submission folder are used as they are.

Every byte of a submission is hostile data (:mod:`grader.untrusted`): a notebook is
read without following links and within size bounds, and checked before anything
uses it (:func:`check_notebook`). A cell that is not a cell, a source that is not
text, nbgrader metadata that is not what the course wrote (a grade id that is not a
plain name) or a cell over :data:`MAX_CELL_CHARS` is left out with a note to that
student; such a submission is *quarantined*: nbgrader never reads it, and the course
grader alone records its grade.
"""

from __future__ import annotations

import ast
import json
import re
import shutil
from dataclasses import dataclass, field
from pathlib import Path

import nbformat

from grader.core.course import Assignment, Course
from grader.feedback import GENERAL, INFORMATION
from grader.notebooks.segments import ModuleParts, assignment_modules
from grader.untrusted import (
    MAX_SUBMISSION_BYTES,
    UntrustedFile,
    linked_part,
    read_regular,
    refused_entries,
    shown,
    valid_text,
)

MAGIC = re.compile(r"^\s*(%|!)")
MAX_NOTEBOOK_BYTES = 64 * 2**20  # a notebook file; one with its plots is a few MB
# What json.loads builds is bounded before it runs, by linear counts of the bytes (strings included,
# so a count is never below the truth): objects and arrays as brackets, values (array elements and
# object members) as commas and brackets. Each value costs the grader 30 to 150 bytes, a container up
# to 200, whatever its size in the file: 63 MB of "1e1," (16 million floats) took 843 MB to parse
# (the adversarial review's A14). At the bounds, the worst notebook costs about 300 MB (2 million
# distinct object keys: 291 MiB, 1 million {"":0}: 216 MiB, benchmarks/bench_notebook_json.py);
# the course's own notebooks hold a few thousand of each (ps4b 3,402 values, the lab run with its
# outputs 1,374), a 300,000-point plot 900,000 values.
MAX_JSON_CONTAINERS = 1_000_000
MAX_JSON_VALUES = 2_000_000
MAX_CELLS = 5_000
MAX_CELL_CHARS = 2**20  # one cell, and one lab module: far beyond any answer, far below the 20 MB staging cap
MAX_NOTE_CHARS = 300
# nbgrader's metadata that the pipeline and nbgrader's templates read: a grade id goes into
# HTML attributes and nbgrader's log unescaped, so it must be a plain name.
GRADE_ID = re.compile(r"^[A-Za-z0-9_][A-Za-z0-9_-]{0,99}\Z")
CELL_ID = re.compile(r"^[A-Za-z0-9_-]{1,64}\Z")  # nbformat 4.5's cell id
CHECKSUM = re.compile(r"^[0-9a-f]{1,128}\Z")
CELL_TYPES = ("code", "markdown", "raw")

# How much a source does for a function: ranks, best last.
MISSING, STUB, BROKEN, IMPLEMENTED = range(4)


@dataclass
class CellSpan:
    """Where an exercise's cell is: the file name its code runs under (``module``.py, as tracebacks
    name it), its lines there (1-based, inclusive), its number in the notebook and its ``name``, as the
    student finds it in Jupyter (:func:`cell_name`)."""

    module: str
    first: int
    last: int
    cell: int | None = None
    name: str = ""


def cell_file(function: str) -> str:
    """The (virtual) file a solution cell runs as: tracebacks name it, feedback names the cell instead."""
    return f"cell_{function}"


# A Markdown heading line (ATX): what JupyterLab's table of contents lists.
HEADING = re.compile(r"^ {0,3}#{1,6}[ \t]+(.*?)[ \t#]*$")
MAX_NAME_CHARS = 70  # of a heading or a first line quoted in a cell's name


def heading_of(markdown: str) -> str | None:
    """The last heading of a Markdown cell as Jupyter renders it (no ``#``, backticks or stars), or None."""
    found = None
    for line in markdown.splitlines():
        match = HEADING.match(line)
        if match and match.group(1).strip("`* "):
            found = match.group(1)
    return shown(" ".join(found.replace("`", "").replace("*", "").split()), MAX_NAME_CHARS) if found else None


def cell_name(heading: str | None, source: str, count: int | None = None) -> str:
    """How a message names a solution cell so that the student finds it in Jupyter: under its exercise's
    heading (the nearest heading above it), else by its first line; and ``In [n]`` when the notebook was
    saved with the cell run (its execution count)."""
    if heading:
        name = f'the cell under "{heading}"'
    else:
        # The first line that says something: the answer cells open with a rule of dashes.
        line = next((s.strip() for s in source.splitlines() if s.strip().strip("#-=_* ")), "")
        name = f'the cell "{shown(line, MAX_NAME_CHARS)}"' if line else "an empty solution cell"
    return name + (f", In [{count}]" if count else "")


MAX_NOTES = 20  # notes per exercise (and for the whole submission) listed


@dataclass
class Extraction:
    """Modules written for one submission, with what the student should know about them."""

    directory: Path
    notes: dict[str, list[str]] = field(default_factory=dict)
    spans: dict[str, CellSpan] = field(default_factory=dict)
    readable: bool = True
    # nbgrader never reads a quarantined submission (links, special files, notebook JSON
    # that had to be repaired): its grades are recorded by the course grader alone.
    quarantined: bool = False
    cells: dict[str, str] = field(default_factory=dict)  # the solution cells graded (grade id -> source)
    read: dict[str, str] = field(default_factory=dict)  # the notebook's solution cells as read, graded or not
    numbers: dict[str, int] = field(default_factory=dict)  # grade id -> the cell's number in the notebook
    names: dict[str, str] = field(default_factory=dict)  # grade id -> the cell as Jupyter shows it (cell_name)
    graded: dict[str, str] = field(default_factory=dict)  # function -> the file, and cell, graded for it
    seen: set[str] = field(default_factory=set)  # exercises some notebook has a solution cell for
    # Assignments whose cells (solution, check or text cells of an exercise) some notebook holds.
    assignments: set[str] = field(default_factory=set)
    left_out: dict[str, int] = field(default_factory=dict, repr=False)  # notes past MAX_NOTES, counted

    def note(self, function: str, text: str) -> None:
        """Tell the student ``text`` about ``function`` (GENERAL: the whole submission). Past
        MAX_NOTES a submission's thousands of links or bad cells are counted, not listed: every
        exercise's report repeats the general notes. A note that says what was graded ('graded from
        ...', :func:`grader.feedback.is_information`) informs; the others warn."""
        notes = self.notes.setdefault(function, [])
        if len(notes) < MAX_NOTES:
            notes.append(text)
            return
        self.left_out[function] = self.left_out.get(function, 0) + 1
        notes[MAX_NOTES:] = [f"... and {self.left_out[function]} more like these"]


def read_notebook(path: Path) -> tuple[dict | None, str | None]:
    """The notebook JSON at ``path``, or None and the reason it cannot be read.

    Never follows a link, never waits on a pipe, reads at most :data:`MAX_NOTEBOOK_BYTES`
    and refuses JSON too deeply nested or with too many values before parsing it. The
    result is raw JSON: :func:`check_notebook` makes it a notebook.
    """
    name = shown(Path(path).name)
    try:
        raw = read_regular(path, MAX_NOTEBOOK_BYTES)
    except UntrustedFile as exc:
        return None, f"{exc}; it was not read"
    except OSError as exc:
        return None, f"{name} could not be read ({exc.strerror})"
    return parse_notebook(raw, name)


def parse_notebook(raw: bytes, name: str = "the notebook") -> tuple[dict | None, str | None]:
    """The notebook JSON in ``raw`` (a student's file, ``name`` as messages show it), or None and the
    reason it is not read: too many containers or values (counted before parsing), not UTF-8, not
    JSON, nested too deeply, not an object."""
    problem = json_size_problem(raw)
    if problem:
        return None, (
            f"{name} holds more than {problem}; it was not read "
            "(clear the outputs, Kernel > Restart & Clear Output, and hand it in again)"
        )
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError:
        return None, f"{name} is not a text file"
    try:
        data = json.loads(text)
    except RecursionError:
        return None, f"{name} is nested too deeply to be a notebook; it was not read"
    except ValueError as exc:
        return None, (
            f"{name} is not valid notebook JSON ({shown(str(exc), MAX_NOTE_CHARS)}); it may have been damaged "
            "when saved"
        )
    if not isinstance(data, dict):
        return None, f"{name} is not a notebook (its JSON is {_kind(data)}, not an object)"
    return data, None


def json_size_problem(raw: bytes) -> str | None:
    """What in the JSON text ``raw`` is beyond :data:`MAX_JSON_CONTAINERS` or :data:`MAX_JSON_VALUES`
    (``"2,000,000 JSON values ..."``), or None. Counts bytes (C speed, no copy): never parses."""
    containers = raw.count(b"[") + raw.count(b"{")
    if containers > MAX_JSON_CONTAINERS:
        return f"{MAX_JSON_CONTAINERS:,} JSON arrays and objects"
    if containers + raw.count(b",") > MAX_JSON_VALUES:
        return f"{MAX_JSON_VALUES:,} JSON values (numbers, strings, list items; its outputs included)"
    return None


def _kind(value) -> str:
    names = {
        str: "a string",
        bool: "true or false",
        int: "a number",
        float: "a number",
        list: "a list",
        dict: "an object",
        type(None): "null",
    }
    return names.get(type(value), type(value).__name__)


def nbgrader_problem(meta) -> str | None:
    """Why ``meta`` (a cell's ``nbgrader`` metadata) is not what nbgrader and the course write, or None."""
    if not isinstance(meta, dict):
        return f"it is {_kind(meta)}, not an object"
    grade_id = meta.get("grade_id")
    if not isinstance(grade_id, str) or not GRADE_ID.match(grade_id):
        # The id itself is not repeated: it is exactly the text that must not reach a log or a page.
        return "its grade id is not a plain name (letters, digits, _ and -, at most 100)"
    for key in ("grade", "solution", "locked", "task"):
        if key in meta and not isinstance(meta[key], bool):
            return f"its {key!r} is {_kind(meta[key])}, not true or false"
    points = meta.get("points", 0)
    if isinstance(points, bool) or not isinstance(points, (int, float)):
        return f"its points are {_kind(points)}, not a number"
    if not 0 <= points <= 10_000:  # NaN and infinities fail too; a huge int is never made a float
        return "its points are not a number of points (0 to 10000)"
    if "schema_version" in meta and (
        isinstance(meta["schema_version"], bool) or meta["schema_version"] not in (1, 2, 3)
    ):
        return "its schema version is not one nbgrader knows"
    if "checksum" in meta and not (isinstance(meta["checksum"], str) and CHECKSUM.match(meta["checksum"])):
        return "its checksum is not a checksum"
    if "cell_type" in meta and meta["cell_type"] not in CELL_TYPES:
        return "its cell type is not one nbgrader knows"
    return None


def _source(value) -> str | None:
    if isinstance(value, str):
        return valid_text(value)
    if isinstance(value, list) and all(isinstance(line, str) for line in value):
        return valid_text("".join(value))
    return None


def new_cell(
    cell_type: str, source: str, cell_id: str, metadata: dict, execution_count: int | None = None
) -> nbformat.NotebookNode:
    """A notebook cell made of checked parts (nbformat's constructors validate each cell against the
    schema: 1 ms a cell, most of the cost of reading a notebook)."""
    cell = {"cell_type": cell_type, "id": cell_id, "metadata": metadata, "source": source}
    if cell_type == "code":
        cell.update(execution_count=execution_count, outputs=[])
    return nbformat.from_dict(cell)


def execution_count(cell: dict) -> int | None:
    """A code cell's execution count (Jupyter's ``In [n]``) when it is a plain count, else None."""
    count = cell.get("execution_count")
    return count if type(count) is int and 0 < count < 10**9 else None


Note = tuple[str, str]  # (the grade id of the solution cell it is about, or GENERAL; text)


def check_notebook(data, name: str = "the notebook") -> tuple[nbformat.NotebookNode | None, list[Note]]:
    """A clean notebook built from ``data`` (raw notebook JSON, or a NotebookNode), and a note per part left out.

    The result holds only what was checked: each cell's type, id and text, and its
    ``nbgrader`` metadata when that is exactly what nbgrader writes (a plain grade id,
    booleans, finite points); outputs, attachments and every other piece of metadata are
    dropped. Returns None (and the reason) when there is no notebook to speak of.
    """
    if not isinstance(data, dict):
        return None, [(GENERAL, f"{name} is not a notebook (its JSON is {_kind(data)}, not an object)")]
    try:
        # An old notebook (worksheets, no list of cells) is converted; one with cells is read as
        # version 4 whatever its "nbformat" says (a lie would convert it into nothing).
        if not isinstance(data.get("cells"), list) and type(data.get("nbformat")) is int and data["nbformat"] < 4:
            data = nbformat.convert(nbformat.from_dict(data), 4)
    except (Exception, RecursionError) as exc:  # any malformed old notebook: say so, never stop the class
        return None, [
            (GENERAL, f"{name} is an old notebook format that could not be read ({shown(str(exc), MAX_NOTE_CHARS)})")
        ]
    cells = data.get("cells")
    if not isinstance(cells, list):
        return None, [(GENERAL, f"{name} has no list of cells")]
    if len(cells) > MAX_CELLS:
        return None, [(GENERAL, f"{name} has {len(cells)} cells, more than the {MAX_CELLS} a notebook may have")]
    notes: list[Note] = []
    kept, ids = [], set()
    for number, cell in enumerate(cells, start=1):
        if not isinstance(cell, dict):
            notes.append((GENERAL, f"cell {number} is not a notebook cell (it is {_kind(cell)}); it was left out"))
            continue
        cell_type = cell.get("cell_type")
        if cell_type not in CELL_TYPES:
            notes.append((GENERAL, f"cell {number} is not a code, markdown or raw cell; it was left out"))
            continue
        metadata = cell.get("metadata", {})
        meta = metadata.get("nbgrader") if isinstance(metadata, dict) else None
        if not isinstance(metadata, dict):
            notes.append((GENERAL, f"cell {number}: its metadata is {_kind(metadata)}, not an object; it was ignored"))
        elif meta is not None:
            problem = nbgrader_problem(meta)
            if problem:
                notes.append(
                    (
                        GENERAL,
                        f"cell {number}: its nbgrader metadata is not what the course wrote "
                        f"({problem}); the cell was not graded",
                    )
                )
                meta = None
        about = meta["grade_id"] if meta and meta.get("solution") else GENERAL
        label = f"the cell of {about} (cell {number})" if about else f"cell {number}"
        source = _source(cell.get("source", ""))
        if source is None:
            notes.append((about, f"{label}: its source is {_kind(cell.get('source'))}, not text; it was left out"))
            continue
        if len(source) > MAX_CELL_CHARS:
            notes.append(
                (
                    about,
                    f"{label} is {len(source) / 2**20:.1f} MB, more than the "
                    f"{MAX_CELL_CHARS / 2**20:g} MB a cell may hold; it was left out",
                )
            )
            continue
        cell_id = cell.get("id")
        cell_id = (
            cell_id if isinstance(cell_id, str) and CELL_ID.match(cell_id) and cell_id not in ids else f"cell-{number}"
        )
        ids.add(cell_id)
        metadata = {"nbgrader": dict(meta)} if meta is not None else {}
        kept.append(new_cell(cell_type, source, cell_id, metadata, execution_count(cell)))
    nb = nbformat.from_dict({"cells": [], "metadata": {}, "nbformat": 4, "nbformat_minor": 5})
    nb.cells = kept
    nb.metadata = kept_metadata(data.get("metadata"))
    return nb, notes


def kept_metadata(metadata) -> dict:
    """What a notebook's metadata may keep from a student's: the kernel's and language's names,
    short and valid text. Nothing else of it is ever read or shown."""
    kept: dict = {}
    old = metadata if isinstance(metadata, dict) else {}
    kernelspec, language = old.get("kernelspec"), old.get("language_info")
    if isinstance(kernelspec, dict):
        kept["kernelspec"] = {
            key: valid_text(value)
            for key, value in kernelspec.items()
            if key in ("name", "display_name", "language") and isinstance(value, str) and len(value) < 100
        }
    if isinstance(language, dict) and isinstance(language.get("name"), str) and len(language["name"]) < 100:
        kept["language_info"] = {"name": valid_text(language["name"])}
    return kept


def solution_cells(data, checked: bool = False) -> dict[str, str]:
    """grade id -> source of the solution cells of a notebook (as :func:`check_notebook` keeps them;
    ``checked``: ``data`` is already its result); a duplicated id keeps the last cell, as nbgrader does."""
    return {grade_id: found.source for grade_id, found in found_solution_cells(data, checked).items()}


@dataclass(frozen=True)
class FoundCell:
    """A solution cell of a notebook: its source, its number (from 1) and its name (:func:`cell_name`)."""

    source: str
    number: int
    name: str


def found_solution_cells(data, checked: bool = False) -> dict[str, FoundCell]:
    """grade id -> the solution cell with that id; as :func:`solution_cells`."""
    nb = data if checked else check_notebook(data)[0]
    found: dict[str, FoundCell] = {}
    heading = None
    for number, cell in enumerate(nb.cells if nb is not None else [], start=1):
        meta = cell.metadata.get("nbgrader") or {}
        if meta.get("solution") and not meta.get("grade"):  # whatever its type: nbgrader's test is the metadata
            name = cell_name(heading, cell.source, execution_count(cell))
            found[meta["grade_id"]] = FoundCell(cell.source, number, name)
        elif cell.cell_type == "markdown":
            heading = heading_of(cell.source) or heading
    return found


def exercise_cells(nb, functions) -> set[str]:
    """The exercises among ``functions`` that a checked notebook has a cell of: a solution cell (its grade
    id), a check cell (``test_<name>``) or a text cell (``context_<name>``), as the course builds them."""
    named = set()
    for cell in nb.cells:
        grade_id = (cell.metadata.get("nbgrader") or {}).get("grade_id", "")
        for prefix in ("", "test_", "context_"):
            if grade_id.startswith(prefix) and grade_id[len(prefix) :] in functions:
                named.add(grade_id[len(prefix) :])
    return named


def clean_cell(source: str) -> tuple[str, int]:
    """IPython magics and shell lines become comments (they are not Python); returns how many."""
    lines, changed = [], 0
    for line in source.splitlines():
        if MAGIC.match(line):
            indent = line[: len(line) - len(line.lstrip())]
            lines.append(f"{indent}pass  # notebook-only line left out: {line.strip()}")
            changed += 1
        else:
            lines.append(line)
    return "\n".join(lines), changed


def compile_problem(source: str, function: str) -> str | None:
    try:
        compile(source, f"<cell {function}>", "exec", dont_inherit=True)
    except SyntaxError as exc:
        return f"line {exc.lineno}: {exc.msg}"
    except ValueError as exc:  # e.g. null bytes
        return str(exc)
    except (RecursionError, MemoryError):
        return "nested too deeply for Python to compile"
    return None


# Runs each solution cell on its own, in the module's namespace, as the notebook's kernel ran it:
# a cell's failure is kept for the worker (grader.worker.runtime.Worker.cell_problem) and costs
# that cell's exercise, never the module's other ones. Standalone: the worker has no grader package.
CELL_RUNNER = """\
def __run_cells__(cells, namespace):
    import os
    folder = os.path.dirname(os.path.abspath(namespace["__file__"]))
    errors = namespace.setdefault("__cell_errors__", {})
    for functions, file_name, source in cells:
        try:
            code = compile(source, os.path.join(folder, file_name + ".py"), "exec", dont_inherit=True)
            exec(code, namespace)
        except BaseException as exc:  # SystemExit and KeyboardInterrupt too: that cell's, not the module's
            for function in functions:
                errors[function] = exc
"""


def module_text(
    parts: ModuleParts,
    cells: list[tuple[str, str]],
    spans: dict[str, CellSpan],
    numbers: dict[str, int] | None = None,
    first: tuple[str, list[str], str] | None = None,
    names: dict[str, str] | None = None,
) -> str:
    """Course-provided code first, then each cell, run on its own (:data:`CELL_RUNNER`); records each
    cell's span (its file name as tracebacks give it, lines 1 to n; ``numbers`` and ``names`` say where the
    student finds it). A cell is kept one source line per string, so whoever reads the module reads the cell as it was written. ``first``: (file name,
    functions, source) of a student's own module, run before the cells (its failure costs those functions)."""
    head = [
        f'"""{parts.name}: extracted from a notebook (course code first, then each solution cell, run on '
        'its own: a cell that fails costs only its own exercise)."""'
    ]
    head += parts.future
    prelude = parts.prelude_text()
    text = "\n".join(head) + "\n\n" + (prelude + "\n" if prelude else "")
    text += "\n\n" + CELL_RUNNER + "\n\n__run_cells__([\n"
    if first is not None:
        file_name, functions, source = first
        text += f"    # --- {file_name}.py, as handed in ---\n    ({tuple(functions)!r}, {file_name!r}, (\n"
        text += "".join(f"        {line!r}\n" for line in (source.rstrip("\n") + "\n").splitlines(keepends=True))
        text += "    )),\n"
    for function, source in cells:
        body = source.rstrip("\n") + "\n"
        lines = body.splitlines(keepends=True)
        text += f"    # --- the cell of {function} ---\n    ({(function,)!r}, {cell_file(function)!r}, (\n"
        text += "".join(f"        {line!r}\n" for line in lines) + "    )),\n"
        spans[function] = CellSpan(
            cell_file(function), 1, body.count("\n"), (numbers or {}).get(function), (names or {}).get(function, "")
        )
    text += "], globals())\ndel __run_cells__\n"
    return text


def module_cells(text: str) -> dict[str, str]:
    """function -> the cell source an extracted module (:func:`module_text`) runs for it."""
    import ast

    for node in ast.walk(ast.parse(text)):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "__run_cells__":
            return {
                function: source for functions, _, source in ast.literal_eval(node.args[0]) for function in functions
            }
    return {}


def extract_submission(
    course: Course,
    assignment: Assignment,
    notebooks: list[nbformat.NotebookNode | None],
    problems: list[str],
    submission_dir: Path | None,
    dest: Path,
    student_modules: list[str] = (),
    modules: dict[str, ModuleParts] | None = None,
) -> Extraction:
    """Write the modules of one submission into ``dest`` (emptied first).

    ``notebooks`` are the submission's notebooks that could be read, ``problems``
    why others could not; ``submission_dir`` holds a lab's ``.py`` modules.
    ``modules`` is :func:`assignment_modules` of the assignment: the same for every
    student, so a class computes it once (it is computed here when not given).

    In phases: the notebooks' solution cells, a lab's modules copied, per exercise the source graded
    (the notebook's cell or a module handed in beside it), the modules written.
    """
    if dest.exists():
        shutil.rmtree(dest)
    dest.mkdir(parents=True)
    ex = Extraction(directory=dest, quarantined=bool(problems))
    for problem in problems:
        ex.note(GENERAL, problem)
    checked = _read_cells(ex, notebooks, {e.function for e in assignment.exercises})
    if not notebooks and not problems:
        ex.note(GENERAL, "the submission has no notebook")
    if (problems or notebooks) and not checked:
        ex.readable = False
    if submission_dir is not None and student_modules and not linked_folder(submission_dir):
        _copy_lab_modules(ex, submission_dir, student_modules, dest)
    # A module of the notebook's exercises handed in beside it (an LMS download's .py): per function,
    # the source that implements it is graded, as grader.notebooks.submission decides for grade-class.
    graded = [e for e in assignment.exercises if e.kind != "lab"]
    own = own_modules(submission_dir, {e.module for e in graded}, ex) if submission_dir is not None else {}
    from_module, by_module = _choose_cells(ex, graded, own, any(nb is not None for nb in notebooks))
    modules = assignment_modules(course, assignment) if modules is None else modules
    for module, module_cells in by_module.items():
        if module in modules:
            first = (module, from_module[module], own[module]) if module in from_module else None
            text = module_text(modules[module], module_cells, ex.spans, ex.numbers, first=first, names=ex.names)
            (dest / f"{module}.py").write_text(text, encoding="utf-8")
    return ex


def _read_cells(ex: Extraction, notebooks: list, functions: set[str]) -> int:
    """The solution cells of the notebooks that can be read, into ``ex`` (a later notebook's cell replaces
    an earlier one's); each notebook's problems are notes, and quarantine the submission. Returns how
    many notebooks could be read."""
    checked = 0
    for data in notebooks:
        if data is None:
            continue
        nb, notes = check_notebook(data, "the notebook")
        for about, text in notes:
            ex.note(about if about in functions else GENERAL, text)
        ex.quarantined = ex.quarantined or bool(notes)
        if nb is None:
            continue
        checked += 1
        for grade_id, found in found_solution_cells(nb, checked=True).items():
            ex.cells[grade_id], ex.numbers[grade_id], ex.names[grade_id] = found.source, found.number, found.name
            ex.read[grade_id] = found.source
    return checked


def _copy_lab_modules(ex: Extraction, submission_dir: Path, student_modules: list[str], dest: Path) -> None:
    """A lab is graded from the student's modules: copy the ones the course hands out, never through a
    link (a link to solutions/ would be graded, and shown in feedback, as the student's)."""
    for rel in student_modules:
        source = submission_dir / rel
        try:
            if linked_part(source, submission_dir) not in (None, source):
                raise UntrustedFile(f"{shown(rel)} is in a folder that is a symbolic link")
            content = read_regular(source, MAX_CELL_CHARS)
        except FileNotFoundError:
            continue
        except (UntrustedFile, OSError) as exc:
            ex.note(GENERAL, f"{exc}; it was left out (links are never followed: hand in the file itself)")
            ex.quarantined = True
            continue
        (dest / rel).parent.mkdir(parents=True, exist_ok=True)
        (dest / rel).write_bytes(content)


def _choose_cells(
    ex: Extraction, graded: list, own: dict[str, str], any_notebook: bool
) -> tuple[dict[str, list[str]], dict[str, list[tuple[str, str]]]]:
    """Per exercise, what is graded: a module handed in that implements it further than the cell, else the
    cell (magics left out; one that does not compile is left out with a note). Returns the functions
    graded from each module handed in, and the cells to write into each module."""
    from_module: dict[str, list[str]] = {}
    by_module: dict[str, list[tuple[str, str]]] = {}
    for e in graded:
        source = ex.cells.get(e.function)
        by_module.setdefault(e.module, [])
        if e.module in own and module_wins(own[e.module], source, e.function):
            from_module.setdefault(e.module, []).append(e.function)
            ex.cells.pop(e.function, None)
            unfinished = "has it unfinished)" if source is not None else "is missing)"
            ex.note(e.function, f"{INFORMATION}{e.module}.py, which implements it (the notebook's cell {unfinished}")
            continue
        if source is None:
            if any_notebook:
                ex.note(
                    e.function, f"the notebook has no cell for {e.function} (was it deleted, or its metadata changed?)"
                )
            continue
        source = _runnable(ex, e.function, source)
        if source is not None:
            by_module[e.module].append((e.function, source))
    return from_module, by_module


def _runnable(ex: Extraction, function: str, source: str) -> str | None:
    """A solution cell as it runs (IPython magics left out, with a note), or None with a note when it does
    not compile."""
    name = ex.names.get(function) or f"the cell of {function}"
    source, magics = clean_cell(source)
    if magics:
        ex.note(function, f"{magics} IPython magic or shell line(s) in {name} were left out (they are not Python)")
    problem = compile_problem(source, function)
    if problem:
        ex.note(function, f"{name} has a syntax error ({problem}); it was left out, so {function} could not be graded")
        return None
    return source


def own_modules(folder: Path, names: set[str], ex: Extraction) -> dict[str, str]:
    """module -> text of ``<folder>/<module>.py`` for each of ``names`` handed in (a regular file within
    bounds, never through a link, valid Python); what cannot be used is a note."""
    found: dict[str, str] = {}
    if linked_folder(folder):
        return found
    for name in sorted(names):
        try:
            data = read_regular(folder / f"{name}.py", MAX_CELL_CHARS)
        except FileNotFoundError:
            continue
        except (UntrustedFile, OSError) as exc:
            ex.note(GENERAL, f"{exc}; it was left out (links are never followed: hand in the file itself)")
            ex.quarantined = True
            continue
        text = data.decode("utf-8", errors="replace")
        if compile_problem(text, name) is not None:
            ex.note(
                GENERAL,
                f"{name}.py has a syntax error ({compile_problem(text, name)}): the notebook's cells were graded",
            )
            continue
        found[name] = text
    return found


def rank_of(source: str, function: str) -> int:
    """How far ``source`` (a cell or a module) got with ``function``: not there, an untouched stub
    (its body only raises NotImplementedError, or the answer is None), broken (no valid Python) or written."""
    try:
        tree = ast.parse(source)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return BROKEN if function in source else MISSING
    rank = MISSING
    for node in tree.body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and node.name == function:
            body = [n for n in node.body if not (isinstance(n, ast.Expr) and isinstance(n.value, ast.Constant))]
            stub = len(body) == 1 and isinstance(body[0], ast.Raise) and "NotImplementedError" in ast.dump(body[0])
            rank = STUB if stub else IMPLEMENTED
        elif isinstance(node, (ast.Assign, ast.AnnAssign)):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            if any(isinstance(t, ast.Name) and t.id == function for t in targets):
                none = isinstance(node.value, ast.Constant) and node.value.value is None
                rank = STUB if none else IMPLEMENTED
    return rank


def module_wins(module_source: str, cell: str | None, function: str) -> bool:
    """Does the handed-in module implement ``function`` further than the notebook's cell (none, an
    untouched stub or broken)? When both implement it, the notebook's cell is graded."""
    cell_rank = MISSING if cell is None else rank_of(clean_cell(cell)[0], function)
    return rank_of(module_source, function) == IMPLEMENTED and cell_rank < IMPLEMENTED


def linked_folder(folder: Path) -> bool:
    """Is a submission folder, or the student's folder holding it, a symbolic link?"""
    return folder.is_symlink() or folder.parent.is_symlink()


def notebooks_of(submission_dir: Path, names: list[str]) -> tuple[list[dict | None], list[str]]:
    """The raw JSON of the assignment's notebooks in a submission folder, and what is wrong with the folder.

    Nothing is read through a link; a link, pipe, socket or device anywhere in the folder
    is named in the problems (the submission is then quarantined from nbgrader, which
    would follow it).
    """
    submission_dir = Path(submission_dir)
    if linked_folder(submission_dir):
        return [], ["the submission folder is a symbolic link; links are never followed"]
    refused = dict(refused_entries(submission_dir, max_bytes=MAX_SUBMISSION_BYTES))
    problems = [
        f"{shown(path.relative_to(submission_dir))} is {what}; it was not read (links are never followed: "
        "hand in the file itself)"
        if path != submission_dir
        else f"the submission holds {what}; none of its other files was copied"
        for path, what in refused.items()
    ]
    notebooks = []
    for name in names:
        path = submission_dir / name
        if path in refused:
            notebooks.append(None)
            continue
        if not path.exists():
            problems.append(f"the submission has no {name}")
            continue
        nb, problem = read_notebook(path)
        if problem:
            problems.append(problem)
        notebooks.append(nb)
    return notebooks, problems
