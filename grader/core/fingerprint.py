"""Fingerprints that decide whether a stored grade is still valid.

A grade depends on the submission's Python files and on everything of the course
that grades: course.yaml, the reference solutions, the course-provided files in
exercises/, the autograder tests, the grader's own grading code and the
numpy/Python versions. A record keeps both fingerprints; when either changes, the
submission is graded again.

Every name that enters a digest is relative (to the submission, the course or the
package): a course or a class copied elsewhere, or mounted at another path, keeps
its fingerprints, so its valid records are reused.
"""

from __future__ import annotations

import hashlib
import os
import platform
import struct
from pathlib import Path
from typing import Iterable

import numpy as np

import grader
from grader.core.course import Course
from grader.errors import GraderError

# The parts of the grader that decide a grade (not the notebook builder, the CLI, the
# class run's bookkeeping): a cosmetic change elsewhere must not regrade a class.
GRADING_CODE = (
    "core/",
    "worker/",
    "sandbox/",
    "testing.py",
    "answers.py",
    "engine/driver.py",
    "engine/parcel.py",
    "engine/record.py",
)


def digest_named(digest, items: Iterable[tuple[str, bytes]]) -> None:
    """Feed ``(relative name, bytes)`` pairs to ``digest`` in name order, each length-prefixed.

    A student chooses both names and bytes: with separators alone, ``{"a.py": b"x\\0b.py\\0y"}``
    and ``{"a.py": b"x", "b.py": b"y"}`` fed the same bytes, and the second folder kept the
    first's grade. With the count and every length in front, the digested bytes decode back
    to exactly one set of pairs.
    """
    items = sorted(items)
    digest.update(_LENGTH.pack(len(items)))
    for rel, data in items:
        name = os.fsencode(rel)  # a student's file name may not be UTF-8: its bytes
        digest.update(_LENGTH.pack(len(name)) + name)
        digest.update(_LENGTH.pack(len(data)))
        digest.update(data)


_LENGTH = struct.Struct(">Q")


def _files(root: Path, paths) -> list[tuple[str, bytes]]:
    return [(p.relative_to(root).as_posix(), p.read_bytes()) for p in paths]


def _tree(root: Path, pattern: str = "*") -> list[Path]:
    if not root.is_dir():
        return []
    return [
        p
        for p in root.rglob(pattern)
        if p.is_file()
        and "__pycache__" not in p.parts
        and not any(part.startswith(".") for part in p.relative_to(root).parts)
        and p.suffix != ".pyc"
    ]


def files_fingerprint(files: dict[str, bytes]) -> str:
    """The fingerprint of a submission given as ``{relative name: bytes}``."""
    digest = hashlib.sha256(b"submission v2\0")
    digest_named(digest, files.items())
    return digest.hexdigest()


def course_files(course: Course) -> list[Path]:
    """Every file of the course that decides a grade (what a grading session needs of it)."""
    paths = [
        course.course_file,
        *_tree(course.solutions_dir, "*.py"),
        *_tree(course.exercises_dir),
        *_tree(course.tests_dir),
    ]
    return [p for p in paths if p.is_file()]


def course_fingerprint(course: Course) -> str:
    digest = hashlib.sha256(b"course v2\0")
    digest.update(f"python {platform.python_version()} numpy {np.__version__}\0".encode())
    digest_named(digest, _files(course.root, course_files(course)))
    package = Path(grader.__file__).resolve().parent
    code = [p for p in _tree(package, "*.py") if p.relative_to(package).as_posix().startswith(GRADING_CODE)]
    digest_named(digest, _files(package, code))
    return digest.hexdigest()


def run_fingerprint(course: Course, only: list[str] | None = None) -> str:
    """The course fingerprint records are stored under; with ``only``, the functions graded are part
    of it, so a partial grade never passes for a complete one (or for another part)."""
    course_hash = course_fingerprint(course)
    if only:
        only = [f for f in course.functions if f in only]
        course_hash = hashlib.sha256(f"{course_hash} only {' '.join(only)}".encode()).hexdigest()
    return course_hash


class CourseMismatch(GraderError):
    """A grading session's course is not the one the client grades with."""


def check_course(course: Course, only: list[str] | None, expected: str, where: str) -> str:
    """The run fingerprint of ``course`` here, when it is ``expected``.

    Raises
    ------
    CourseMismatch
        Naming both fingerprints: the course files, the grader's grading code, Python or numpy differ.
    """
    here = run_fingerprint(course, only)
    if here != expected:
        raise CourseMismatch(
            f"{where} grades with course fingerprint {here[:16]}, the client with "
            f"{expected[:16]}: the course files, the grader's grading code, Python or numpy "
            f"differ there (python {platform.python_version()}, numpy {np.__version__}, "
            f"grader {grader.__version__})"
        )
    return here
