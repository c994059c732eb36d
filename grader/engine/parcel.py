"""A submission as its files' bytes: what travels from the instructor's machine to a grading session.

A grading session may run on another machine with no shared file system (a Dask
worker), so a submission never travels as a path: the client reads its Python files
(never following a link, at most :data:`~grader.core.staging.MAX_SUBMISSION_BYTES`),
and the session writes them into its own scratch directory before staging. The
fingerprint is taken of exactly these bytes, so a record always says what was graded.
"""

from __future__ import annotations

import base64
import os
from dataclasses import dataclass, field
from pathlib import Path

from grader.core.fingerprint import files_fingerprint
from grader.core.staging import MAX_SUBMISSION_BYTES, SubmissionRefused, submission_files  # noqa: F401
from grader.errors import GraderError
from grader.untrusted import shown


@dataclass
class Parcel:
    """One submission to grade.

    ``student`` keys the record; ``label`` is how the instructor named the submission
    (relative, e.g. ``alice.py`` or ``alice/ps4b``: no record holds an absolute path);
    ``single_file`` marks a lone ``.py`` file, which stands for every module of the
    course; ``only`` restricts this submission to some functions.
    """

    student: str
    label: str
    files: dict[str, bytes]
    single_file: bool = False
    only: list[str] | None = None
    fingerprint: str = field(init=False)

    def __post_init__(self):
        self.fingerprint = files_fingerprint(self.files)

    @classmethod
    def read(cls, student: str, path: Path, label: str | None = None, only: list[str] | None = None) -> "Parcel":
        """The Python files of the submission at ``path`` (a folder or one ``.py`` file).

        Raises
        ------
        GraderError
            When the submission is a link, unreadable, or holds too much code (this student only).
        """
        path = Path(path)
        label = label or path.name
        try:
            paths = submission_files(path)
            total = sum(p.stat().st_size for p in paths)  # before reading anything
            if total > MAX_SUBMISSION_BYTES:
                raise SubmissionRefused(f"{label}: more than {MAX_SUBMISSION_BYTES >> 20} MB of Python files")
            root = path.parent if path.is_file() else path
            files = {p.relative_to(root).as_posix(): p.read_bytes() for p in paths}
        except OSError as exc:
            what = shown(os.path.basename(exc.filename)) if exc.filename else "the submission"
            raise GraderError(f"{label}: cannot read {what} ({exc.strerror or exc})") from None
        return cls(student, label, files, single_file=path.is_file(), only=list(only) if only else None)

    def write(self, directory: Path) -> Path:
        """Write the files under ``directory`` (empty); the submission's path there."""
        directory.mkdir(parents=True, exist_ok=True)
        for rel, data in self.files.items():
            parts = rel.split("/")
            if rel.startswith("/") or any(p in ("", ".", "..") for p in parts):
                raise GraderError(f"{self.label}: bad file name {rel!r}")
            target = directory.joinpath(*parts)
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_bytes(data)
        if self.single_file:
            (name,) = self.files
            return directory / name
        return directory

    # Plain data for the local pool's pipes (a Dask cluster moves the object itself).
    def to_json(self) -> dict:
        return {
            "student": self.student,
            "label": self.label,
            "single_file": self.single_file,
            "only": self.only,
            "files": {rel: base64.b64encode(data).decode("ascii") for rel, data in self.files.items()},
        }

    @classmethod
    def from_json(cls, data: dict) -> "Parcel":
        files = {rel: base64.b64decode(text) for rel, text in data["files"].items()}
        return cls(
            data["student"], data["label"], files, single_file=bool(data.get("single_file")), only=data.get("only")
        )


def check_submission_path(path: Path | str) -> Path:
    """A submission must be a directory or a .py file; say clearly when it is not."""
    p = Path(path)
    if not p.exists():
        raise GraderError(f"submission not found: {p}")
    if p.is_file() and p.suffix != ".py":
        raise GraderError(f"a submission is a directory shaped like exercises/ or one .py file, not {p.name}")
    if not (p.is_file() or p.is_dir()):
        raise GraderError(f"not a file or directory: {p}")
    return p


def label_of(path: Path, root: Path) -> str:
    """``path`` relative to ``root`` when inside it, else its name."""
    try:
        return (
            Path(os.path.relpath(Path(path).resolve(), Path(root).resolve())).as_posix()
            if Path(path).resolve().is_relative_to(Path(root).resolve())
            else Path(path).name
        )
    except ValueError:
        return Path(path).name
