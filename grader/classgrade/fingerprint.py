"""Fingerprints that decide whether a stored grade is still valid.

A grade depends on the submission's Python files and on everything of the course
that grades: course.yaml, the reference solutions, the course-provided files in
exercises/, the autograder tests, the grader's own grading code and the
numpy/Python versions. A result file records both fingerprints; when either changes, the
submission is graded again.
"""

from __future__ import annotations

import hashlib
import os
import platform
from pathlib import Path

import numpy as np

import grader
from grader.course import Course
from grader.grade.staging import MAX_SUBMISSION_BYTES, submission_files


# The parts of the grader that decide a grade (not the notebook builder, the CLI, the
# class run's bookkeeping): a cosmetic change elsewhere must not regrade a class.
GRADING_CODE = ("grade/", "worker/", "sandbox/", "stubs/", "testing.py", "answers.py", "course.py",
                "classgrade/session.py", "classgrade/worker.py")


def _digest_files(digest, root: Path, paths) -> None:
    for path in sorted(paths):
        # A file name is bytes (a student's may not be UTF-8): hash it as such.
        digest.update(os.fsencode(path.relative_to(root).as_posix()) + b"\0")
        with open(path, "rb") as handle:  # in chunks, and no further than staging would copy
            size = os.fstat(handle.fileno()).st_size
            digest.update(f"{size}\0".encode())
            left = min(size, MAX_SUBMISSION_BYTES + 1)
            while left > 0 and (chunk := handle.read(min(left, 1 << 20))):
                digest.update(chunk)
                left -= len(chunk)
        digest.update(b"\0")


def _tree(root: Path, pattern: str = "*") -> list[Path]:
    if not root.is_dir():
        return []
    return [p for p in root.rglob(pattern) if p.is_file() and "__pycache__" not in p.parts
            and not any(part.startswith(".") for part in p.relative_to(root).parts) and p.suffix != ".pyc"]


def submission_fingerprint(submission: Path) -> str:
    submission = Path(submission)
    digest = hashlib.sha256(b"submission v1\0")
    root = submission.parent if submission.is_file() else submission
    _digest_files(digest, root, submission_files(submission))
    return digest.hexdigest()


def course_fingerprint(course: Course) -> str:
    digest = hashlib.sha256(b"course v1\0")
    digest.update(f"python {platform.python_version()} numpy {np.__version__}\0".encode())
    root = course.root
    paths = [course.course_file, *_tree(course.solutions_dir, "*.py"), *_tree(course.exercises_dir),
             *_tree(course.tests_dir)]
    _digest_files(digest, root, [p for p in paths if p.is_file()])
    package = Path(grader.__file__).resolve().parent
    code = [p for p in _tree(package, "*.py") if p.relative_to(package).as_posix().startswith(GRADING_CODE)]
    _digest_files(digest, package, code)
    return digest.hexdigest()
