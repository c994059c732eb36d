"""Read an LMS download (a zip of notebooks named by student) with nbgrader's ``zip_collect``.

nbgrader's convention: the archive goes to ``downloaded/<assignment>/archive/``,
``nbgrader zip_collect`` extracts it to ``downloaded/<assignment>/extracted/`` and
copies each file to ``submitted/<student>/<assignment>/`` using a collector plugin
that reads the student id from the file name. :class:`StudentFileCollector` is
that plugin for the usual LMS shapes:

- ``<student>_<anything>.ipynb`` or ``<student>.ipynb`` (the notebook);
- ``<student>/<file>`` (one folder per student, e.g. a lab's notebook and modules).

When an assignment has a single notebook, a notebook with any other name is
collected under the notebook's release name (LMSs rename uploads). A custom
``--name-regexp`` with ``(?P<student_id>...)`` and ``(?P<file_id>...)`` groups,
matched against the file name, replaces the first rule.
"""

from __future__ import annotations

import os
import re
import shutil
from pathlib import Path

from nbgrader.plugins.zipcollect import FileNameCollectorPlugin
from nbgrader.utils import find_all_notebooks
from traitlets import Unicode

from grader.build.nbgrader_run import run_nbgrader
from grader.errors import GraderError

DEFAULT_PATTERN = r"^(?P<student_id>[A-Za-z0-9.@-]+?)(?:_(?P<file_id>.+))?$"


class StudentFileCollector(FileNameCollectorPlugin):
    """Student id from the file name (or its folder); file id from the release."""

    name_regexp = Unicode(DEFAULT_PATTERN, help="Matched against the file name (without folders) "
                                                "when the file is not in a student folder.").tag(config=True)

    def _release_notebooks(self) -> list[str]:
        app = self.parent
        coursedir = getattr(app, "coursedir", None)
        if coursedir is None:
            return []
        released = coursedir.format_path(coursedir.release_directory, ".", coursedir.assignment_id)
        return sorted(find_all_notebooks(released)) if os.path.isdir(released) else []

    def _archive_names(self) -> set[str]:
        app = self.parent
        if app is None:
            return set()
        folder = app._format_collect_path(app.archive_directory)
        names = os.listdir(folder) if os.path.isdir(folder) else []
        return {os.path.splitext(n)[0] for n in names}

    def _extracted_root(self) -> str:
        app = self.parent
        return app._format_collect_path(app.extracted_directory) if app is not None else ""

    def collect(self, submitted_file: str):
        _, ext = os.path.splitext(submitted_file)
        if ext not in self.valid_ext:
            return None
        rel = os.path.relpath(submitted_file, self._extracted_root()) if self._extracted_root() else submitted_file
        parts = Path(rel).parts
        # nbgrader unpacks each archive into a folder named after it: skip that level.
        if len(parts) > 1 and parts[0] in self._archive_names():
            parts = parts[1:]
        if len(parts) >= 2:
            student, file_id = parts[-2], parts[-1]
        else:
            stem = Path(parts[-1]).stem
            match = re.match(self.name_regexp, stem)
            if not match or not match.groupdict().get("student_id"):
                self.log.warning("No student id in the file name %s", parts[-1])
                return None
            student = match.group("student_id")
            file_id = (match.groupdict().get("file_id") or stem) + ext
        notebooks = self._release_notebooks()
        if ext == ".ipynb" and file_id not in notebooks and len(notebooks) == 1:
            file_id = notebooks[0]
        return {"student_id": student, "file_id": file_id}


def collect_zip(course_dir: Path, assignment: str, archive: Path, name_regexp: str | None = None) -> str:
    """Put ``archive`` where nbgrader expects it and run ``nbgrader zip_collect``; return its log."""
    archive = Path(archive)
    if not archive.is_file():
        raise GraderError(f"LMS download not found: {archive}")
    if archive.suffix.lower() != ".zip":
        raise GraderError(f"{archive.name}: an LMS download is a .zip file")
    folder = Path(course_dir) / "downloaded" / assignment / "archive"
    if folder.exists():
        shutil.rmtree(folder)
    folder.mkdir(parents=True)
    shutil.copyfile(archive, folder / archive.name)
    args = ["zip_collect", assignment, "--force",
            "--ZipCollectApp.collector_plugin=grader.autograde.zipcollect.StudentFileCollector",
            "--FileNameCollectorPlugin.valid_ext=['.ipynb', '.py']"]
    if name_regexp:
        args.append(f"--StudentFileCollector.name_regexp={name_regexp}")
    proc = run_nbgrader(Path(course_dir), *args)
    return proc.stdout + proc.stderr
