"""Whatever a student hands in, the modules to grade: ``.py`` files, notebooks, or both.

``grader grade``, ``grader check``, ``grader grade-class`` and the Gradescope autograder
accept a notebook (``ps4b.ipynb``, ``jack_ps4b.ipynb``), a folder of notebooks, a folder
of ``.py`` modules, or a folder with both. :func:`prepare` writes one folder shaped like
``exercises/``: per function, the source that implements it wins over an untouched stub
(``raise NotImplementedError`` or an answer still ``None``); when both implement it, the
``.py`` module wins. Notebook cells run on their own (:data:`~grader.notebooks.extract.CELL_RUNNER`),
and the notes say, for each function, which file and cell was graded.

Notebooks are read as :mod:`grader.notebooks.extract` reads them: bounded, never through
a link, checked before use.
"""

from __future__ import annotations

import json
import os
import shutil
from dataclasses import dataclass
from pathlib import Path

from grader.core.course import Course, is_lab
from grader.core.staging import submission_files
from grader.core.stubs import SKIP_PARTS
from grader.errors import GraderError
from grader.feedback import GENERAL, INFORMATION
from grader.notebooks.extract import (
    BROKEN,
    IMPLEMENTED,
    MAX_CELL_CHARS,
    MISSING,
    STUB,
    Extraction,
    FoundCell,
    check_notebook,
    clean_cell,
    compile_problem,
    exercise_cells,
    found_solution_cells,
    module_text,
    rank_of,
    read_notebook,
)
from grader.notebooks.segments import course_modules
from grader.untrusted import MAX_WALK_ENTRIES, UntrustedFile, read_regular, shown

MAX_NOTEBOOKS = 20  # in one submission folder: a module's problem sets and a few copies
# A file beside the notebooks (a module, a timestamp): the figure of one cell's limit, counted in bytes
# here because a file is bounded before it is read and decoded (a cell's text is bounded after).
MAX_FILE_BYTES = MAX_CELL_CHARS


@dataclass
class Source:
    """One candidate source of a function: where it comes from and how far it got."""

    rank: int
    label: str  # for the student: 'ps4b.ipynb, the cell under "gae_advantages (5 points)", In [3]' or 'gae.py'
    source: str = ""
    cell: int | None = None
    notebook: bool = False
    name: str = ""  # a notebook cell's name in Jupyter (grader.notebooks.extract.cell_name)


def is_notebook(path: Path) -> bool:
    return Path(path).suffix == ".ipynb"


def notebook_paths(path: Path) -> list[Path]:
    """The notebooks of a submission: the file itself, or those in the folder (not in hidden or
    checkpoint folders, never through a link), in name order."""
    path = Path(path)
    if path.is_file() or path.is_symlink():
        return [path] if is_notebook(path) and not path.is_symlink() else []
    found, seen = [], 0
    for folder, dirs, files in os.walk(path):  # os.walk does not enter linked folders
        seen += len(dirs) + len(files)
        if seen > MAX_WALK_ENTRIES:  # a folder of millions of entries is not walked to its end
            raise UntrustedFile(f"{path.name} holds more than {MAX_WALK_ENTRIES} files and folders")
        dirs[:] = sorted(d for d in dirs if d not in SKIP_PARTS and not d.startswith("."))
        found += [Path(folder) / f for f in sorted(files) if f.endswith(".ipynb") and not f.startswith(".")]
    return found


def prepare(
    course: Course, path: Path, dest: Path, functions: list[str] | None = None, *, beside: bool = False
) -> tuple[Path, Extraction | None]:
    """The submission at ``path`` as something to grade, and what its notebooks tell the student.

    Without a notebook, ``path`` is returned as it is (and None). Otherwise ``dest`` (emptied)
    receives the submission's own ``.py`` files and, for each course module with a notebook
    cell, a module that runs the student's module (when it has one) and then the notebook cells
    that win (see the module docstring). ``functions``: the exercises graded (default: all).
    ``beside``: a lone notebook of a lab comes with the ``.py`` files of its folder, which the lab's
    notebook imports (``grader check`` on a student's machine; never for a class, whose notebooks
    may share a folder).

    In phases: the notebooks' candidate cells, the student's own ``.py`` files, per function the
    source that wins, the modules written.
    """
    path = Path(path)
    notebooks = notebook_paths(path)
    if not notebooks:
        return path, None
    if dest.exists():
        shutil.rmtree(dest)
    dest.mkdir(parents=True)
    ex = Extraction(directory=dest)
    wanted = [e for e in course.exercises if (functions is None or e.function in functions) and e.kind != "lab"]
    if len(notebooks) > MAX_NOTEBOOKS:
        ex.note(GENERAL, f"the submission has {len(notebooks)} notebooks; only the first {MAX_NOTEBOOKS} were read")
        notebooks = notebooks[:MAX_NOTEBOOKS]
    cells = _notebook_cells(course, path, notebooks, ex)
    if path.is_dir():
        own = _copy_own_files(course, path, submission_files(path), dest)
    elif beside and any(is_lab(course.assignment(a)) for a in ex.assignments):
        own = _copy_own_files(course, path.parent, _files_beside(path), dest)
    else:
        own = {}
    chosen = _choose(wanted, own, cells, ex)
    _write_modules(course, wanted, chosen, own, ex)
    return dest, ex


def _notebook_cells(course: Course, path: Path, notebooks: list[Path], ex: Extraction) -> dict[str, Source]:
    """The candidates from the notebooks, per function: a later notebook (in name order) replaces an
    earlier one's cell only when it got further. Notes what could not be read or was left out."""
    cells: dict[str, Source] = {}
    read_any = False
    for nb_path in notebooks:
        name = shown(nb_path.relative_to(path).as_posix() if path.is_dir() else nb_path.name)
        data, problem = read_notebook(nb_path)
        if problem:
            ex.note(GENERAL, problem)
            continue
        nb, notes = check_notebook(data, name)
        for about, text in notes:
            ex.note(about if about in course.functions else GENERAL, f"{name}: {text}")
        if nb is None:
            continue
        read_any = True
        ex.assignments |= {course.exercise(f).assignment for f in exercise_cells(nb, set(course.functions))}
        for function, found in found_solution_cells(nb, checked=True).items():
            if function in course.functions:
                _candidate(cells, ex, function, found, name)
    if not read_any:
        ex.readable = not notebooks
    return cells


def _candidate(cells: dict[str, Source], ex: Extraction, function: str, found: FoundCell, notebook: str) -> None:
    ex.seen.add(function)
    source, magics = clean_cell(found.source)
    rank = BROKEN if compile_problem(source, function) else rank_of(source, function)
    candidate = Source(rank, f"{notebook}, {found.name}", source, found.number, notebook=True, name=found.name)
    if function not in cells or rank > cells[function].rank:
        cells[function] = candidate
    if magics:
        ex.note(
            function,
            f"{magics} IPython magic or shell line(s) in {notebook}, {found.name} were left out (they are not Python)",
        )


def _files_beside(notebook: Path) -> list[Path]:
    """The ``.py`` files in a notebook's folder (not in its subfolders), regular files only, in name
    order; a folder of more than MAX_WALK_ENTRIES entries is not listed to its end."""
    found = []
    with os.scandir(notebook.parent) as entries:
        for i, entry in enumerate(entries):
            if i >= MAX_WALK_ENTRIES:
                raise UntrustedFile(f"{shown(notebook.parent.name)} holds more than {MAX_WALK_ENTRIES} entries")
            if entry.name.endswith(".py") and not entry.name.startswith(".") and entry.is_file(follow_symlinks=False):
                found.append(Path(entry.path))
    return sorted(found)


def _copy_own_files(course: Course, folder: Path, files: list[Path], dest: Path) -> dict[str, str]:
    """The student's own .py files come along as they are (helpers, lab modules); returns the text of those
    that are course modules (their notebook cells compete with them, and they are written anew)."""
    own: dict[str, str] = {}
    for file in files:
        rel = file.relative_to(folder)
        data = read_regular(file, MAX_FILE_BYTES)
        (dest / rel).parent.mkdir(parents=True, exist_ok=True)
        (dest / rel).write_bytes(data)
        if len(rel.parts) == 1 and rel.stem in course.modules:
            own[rel.stem] = data.decode("utf-8", errors="replace")
    return own


def _choose(wanted: list, own: dict[str, str], cells: dict[str, Source], ex: Extraction) -> dict[str, list]:
    """Per function, the source that wins (module -> [(function, Source)]), each said in a note."""
    by_module: dict[str, list] = {}
    for e in wanted:
        from_py = (
            Source(rank_of(own[e.module], e.function), f"{e.module}.py", own[e.module])
            if e.module in own
            else Source(MISSING, "")
        )
        from_nb = cells.get(e.function, Source(MISSING, ""))
        if from_nb.rank == MISSING and from_py.rank == MISSING:
            continue
        winner = from_nb if from_nb.rank > from_py.rank else from_py
        by_module.setdefault(e.module, []).append((e.function, winner))
        if winner.notebook:
            ex.cells[e.function], ex.numbers[e.function], ex.names[e.function] = winner.source, winner.cell, winner.name
        loser = from_py if winner.notebook else from_nb
        ex.graded[e.function] = winner.label
        ex.note(e.function, _graded_from(winner, loser))
    return by_module


def _graded_from(winner: Source, loser: Source) -> str:
    """What was graded, said as information (:data:`grader.feedback.INFORMATION`)."""
    if loser.rank == MISSING:
        return f"{INFORMATION}{winner.label}"
    if winner.rank < IMPLEMENTED:
        return f"{INFORMATION}{winner.label} ({loser.label} has it unfinished too)"
    if loser.rank < winner.rank:
        return f"{INFORMATION}{winner.label}, which implements it ({loser.label} has it unfinished and was not graded)"
    return (
        f"{INFORMATION}{winner.label} ({loser.label} has it too and was not graded: when both "
        "implement a function, the .py module is graded)"
    )


def _write_modules(course: Course, wanted: list, chosen: dict[str, list], own: dict[str, str], ex: Extraction) -> None:
    """For each course module with a winning notebook cell: the course's code, the student's own module
    (when it compiles), then the cells, each run on its own. A module without one is graded as copied."""
    parts = course_modules(course, {e.function for e in wanted})
    for module, sources in chosen.items():
        notebook_cells = [(f, s) for f, s in sources if s.notebook]
        if not notebook_cells or module not in parts:
            continue
        runnable = []
        for function, s in notebook_cells:
            problem = compile_problem(s.source, function)
            if problem:
                ex.note(
                    function,
                    f"{s.label} has a syntax error ({problem}); it was left out, so {function} could not be graded",
                )
            else:
                runnable.append((function, s.source))
        first = None
        if module in own and compile_problem(own[module], module) is None:
            first = (module, [f for f, s in sources if not s.notebook], own[module])
        elif module in own:
            ex.note(GENERAL, f"{module}.py has a syntax error: only the notebook cells of its functions were graded")
        numbers = {f: s.cell for f, s in notebook_cells}
        text = module_text(parts[module], runnable, ex.spans, numbers, first=first, names=ex.names)
        (ex.directory / f"{module}.py").write_text(text, encoding="utf-8")


def notebook_scope(
    course: Course, path: Path, extraction: Extraction | None, only: list[str] | None
) -> list[str] | None:
    """What to grade: ``only`` when given; for notebooks without any ``.py`` module of the course, the
    assignments whose cells they hold (a ps4b notebook is graded out of ps4b's points, not the module's;
    a lab's notebook, which has no solution cell, out of the lab's); else everything (None)."""
    if only or extraction is None:
        return only
    if Path(path).is_dir() and any((Path(path) / f"{m}.py").is_file() for m in course.modules):
        return None
    assignments = {course.exercise(f).assignment for f in extraction.seen} | extraction.assignments
    return [e.function for e in course.exercises if e.assignment in assignments] or None


def write_modules(course: Course, notebooks: list[Path], dest: Path) -> dict[str, list[str]]:
    """The ``.py`` modules of a student's notebooks, as a student would write them by hand: for each module
    with an implemented cell, the course-provided code, then the cells verbatim (the labs import these).
    A cell that does not compile is left out. Returns module -> notes; only modules with a cell are
    written, and an existing one is replaced."""
    import tempfile

    dest.mkdir(parents=True, exist_ok=True)
    written: dict[str, list[str]] = {}
    with tempfile.TemporaryDirectory(prefix="grader-modules-") as work:
        folder = Path(work) / "notebooks"
        folder.mkdir()
        for i, nb in enumerate(notebooks):
            data, problem = read_notebook(Path(nb))
            if problem:
                raise GraderError(problem)
            name = Path(nb).name if not (folder / Path(nb).name).exists() else f"{i}_{Path(nb).name}"
            (folder / name).write_text(json.dumps(data), encoding="utf-8")
        _, ex = prepare(course, folder, Path(work) / "extracted")
    by_module: dict[str, list[tuple[str, str]]] = {}
    for e in course.exercises:
        source = ex.cells.get(e.function) if ex is not None else None
        if source is None or e.kind == "lab" or rank_of(source, e.function) == STUB:
            continue
        by_module.setdefault(e.module, []).append((e.function, source))
    parts = course_modules(course, {f for cells in by_module.values() for f, _ in cells})
    for module, cells in by_module.items():
        notes = written.setdefault(module, [])
        head = [f'"""{module}: written from my notebooks by `grader modules` (course code first, then my cells)."""']
        text = "\n".join(head + parts[module].future) + "\n\n" + parts[module].prelude_text() + "\n"
        for function, source in cells:
            if compile_problem(source, function):
                notes.append(f"{function}: its cell has a syntax error; left out")
                continue
            text += f"\n\n# --- the cell of {function} ---\n" + source.rstrip("\n") + "\n"
            notes.append(f"{function} from {ex.notes.get(function, ['?'])[0].removeprefix('graded from ')}")
        (dest / f"{module}.py").write_text(text, encoding="utf-8")
    return written


def check_path(path: Path) -> Path:
    """A submission must be a folder, a .py file or a notebook; say clearly when it is not."""
    p = Path(path)
    if not p.exists():
        raise GraderError(f"submission not found: {p}")
    if p.is_file() and p.suffix not in (".py", ".ipynb"):
        raise GraderError(
            f"a submission is a folder shaped like exercises/, one .py file or a notebook (.ipynb), not {p.name}"
        )
    return p
