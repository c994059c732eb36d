"""Which of a submission's files an assignment takes, under which name, and writing them.

An LMS renames uploads (``ps4b (1).ipynb``, Canvas's ``ps4b-1.ipynb`` for a file uploaded again), so
:class:`AssignmentFiles` maps a student's file to the assignment's: the notebook (any notebook, when
the assignment has one), a student module (``gae.py``), a module of the notebook's exercises handed
in beside it; anything else is reported. Two copies of one file keep the later (the LMS's number for
it, then the archive's order); the other is reported as an earlier copy.
"""

from __future__ import annotations

import os
import re
import shutil
from dataclasses import dataclass
from pathlib import Path, PurePosixPath

from grader.lms.collect import Download, LeftOut, Submission, SubmittedFile
from grader.lms.source import Budget, EntryRefused
from grader.notebooks.extract import MAX_CELL_CHARS, MAX_NOTEBOOK_BYTES

MAX_ENTRY_BYTES = MAX_NOTEBOOK_BYTES  # a notebook; a .py module is bounded by MAX_CELL_CHARS
RENAMED = re.compile(r"(?:-\d+| \(\d+\))(?=\.[A-Za-z]+$)")  # an LMS's "-1" or a browser's " (1)"


@dataclass(frozen=True)
class AssignmentFiles:
    """The files an assignment takes from a submission.

    ``notebooks``: its notebooks' names; ``modules``: its student modules (paths, as ``grader build``
    recorded them); ``exercise_modules``: modules (without ``.py``) whose exercises the notebook holds,
    kept beside it; ``any_notebook``: every notebook, under its own name (a class folder).
    """

    notebooks: tuple[str, ...] = ()
    modules: tuple[str, ...] = ()
    exercise_modules: tuple[str, ...] = ()
    any_notebook: bool = False

    def target(self, name: str) -> str:
        """The name ``name`` (a student's file) takes in the submission folder.

        Raises
        ------
        EntryRefused
            When the assignment does not take it, with why.
        """
        path = PurePosixPath(name)
        if len(path.parts) > 1:
            raise EntryRefused("in a sub-folder of the student's folder (only the files at its top are collected)")
        suffix = path.suffix.lower()
        plain = RENAMED.sub("", path.name)
        if suffix == ".ipynb":
            return self._notebook(path.name, plain)
        modules = {PurePosixPath(m).name: m for m in self.modules}
        if suffix == ".py" and plain in modules:
            return modules[plain]
        if suffix == ".py" and PurePosixPath(plain).stem in self.exercise_modules:
            return plain
        raise EntryRefused("not a notebook or module of the assignment")

    def _notebook(self, name: str, plain: str) -> str:
        if plain in self.notebooks:
            return plain
        if len(self.notebooks) == 1:  # an LMS renames uploads: the assignment's one notebook
            return self.notebooks[0]
        if self.any_notebook:
            return name
        raise EntryRefused(f"not one of the assignment's notebooks ({', '.join(self.notebooks)})")


def place(sub: Submission, wanted: AssignmentFiles) -> tuple[dict[str, SubmittedFile], list[LeftOut]]:
    """({name in the submission folder: file}, the files left out with why)."""
    chosen: dict[str, SubmittedFile] = {}
    left: list[LeftOut] = []
    for file in sub.files:
        try:
            name = wanted.target(file.name)
        except EntryRefused as exc:
            left.append(LeftOut(file.entry.name, str(exc)))
            continue
        earlier = chosen.get(name)
        if earlier is not None and earlier.order > file.order:
            earlier, file = file, earlier
        if earlier is not None:
            left.append(
                LeftOut(
                    earlier.entry.name,
                    f"an earlier copy of {name} by {sub.who}; the later one ({file.entry.name}) is collected",
                    by_rule=True,
                )
            )
        chosen[name] = file
    return chosen, left


def write_files(
    download: Download, files: dict[str, SubmittedFile], folder: Path, budget: Budget
) -> tuple[list[str], list[LeftOut]]:
    """Write ``files`` into ``folder`` (new), bounded: (names written, files left out with why)."""
    written, left = [], []
    for name, file in sorted(files.items()):
        limit = MAX_CELL_CHARS if name.endswith(".py") else MAX_ENTRY_BYTES
        try:
            download.copy(file, folder / name, limit, budget)
        except EntryRefused as exc:
            left.append(LeftOut(file.entry.name, str(exc)))
            continue
        written.append(name)
    return written, left


def replace_folder(source: Path, dest: Path) -> None:
    """Make ``source`` (a folder written here) the folder ``dest``, replacing what was there, never
    through a link; folders 0755."""
    if dest.parent.is_symlink():
        dest.parent.unlink()
    dest.parent.mkdir(mode=0o755, parents=True, exist_ok=True)
    if dest.is_symlink() or dest.is_file():
        dest.unlink()
    elif dest.exists():
        shutil.rmtree(dest)
    for parent, _, _ in os.walk(source):
        os.chmod(parent, 0o755)
    shutil.move(str(source), str(dest))


def fresh_folder(path: Path) -> Path:
    """``path`` as a new, empty folder (a link or anything there before is removed, never followed)."""
    if path.is_symlink() or path.is_file():
        path.unlink()
    elif path.exists():
        shutil.rmtree(path)
    path.mkdir(parents=True, mode=0o755)
    return path
