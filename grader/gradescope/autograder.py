"""What ``run_autograder`` runs inside Gradescope: grade one submission into results.json.

``python -m grader.gradescope.autograder --root ROOT`` with Gradescope's layout under
ROOT (``/autograder``): the package in ``source/``, the student's upload in
``submission/``, and ``results/results.json`` to write. In order:

1. ``find``     what the student uploaded: the ``.py`` modules of ``exercises/`` (anywhere in
                the upload) and the assignment's notebook
2. ``stage``    modules into a private folder; a notebook's solution cells extracted into
                modules (:mod:`grader.notebooks.submission`): per function, the source that
                implements it is graded (the module when both do), and the feedback says which
3. ``grade``    with the hidden tests, the student's code in a sandboxed worker
4. ``write``    results.json, atomically, once nothing the submission started is left

Every byte of the upload is the student's: links are never followed, sizes and counts
are bounded, names are never parsed as anything but names. A bad upload earns a grade
and a message; the grader's own trouble exits non-zero without writing results.json
(Gradescope then reports the autograder as failed, and the staff can regrade).
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import stat
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

from grader.core.course import Course, load_course
from grader.engine.driver import grade_here
from grader.engine.options import GradingOptions
from grader.engine.parcel import Parcel
from grader.engine.record import GradeRecord
from grader.errors import GraderError
from grader.feedback import GENERAL
from grader.feedback.gradescope import write_gradescope
from grader.gradescope.package import COURSE_DIR, PACKAGE_FILE
from grader.notebooks.extract import read_notebook
from grader.notebooks.submission import prepare
from grader.options import settings_options
from grader.sandbox import sandbox_launcher
from grader.sandbox.reaper import become_subreaper, kill_strays
from grader.untrusted import shown

MAX_FILES = 2000  # entries of an upload looked at
MAX_DEPTH = 6  # folders deep
MAX_MODULE_BYTES = 2 * 1024 * 1024
SKIP_FOLDERS = {"__pycache__", "__MACOSX", ".ipynb_checkpoints", ".git", "node_modules"}


@dataclass
class Upload:
    """What was found in the submission folder."""

    modules: dict[str, Path] = field(default_factory=dict)  # module name -> file
    notebook: Path | None = None
    notes: list[str] = field(default_factory=list)


def _walk(folder: Path) -> tuple[list[tuple[int, Path]], list[Path]]:
    """(depth, path) of the upload's regular files, and its links (never followed); at most
    MAX_FILES entries (files and folders alike) are looked at."""
    found, links, seen = [], [], 0
    for here, dirs, files in os.walk(folder):  # os.walk does not enter linked folders
        depth = len(Path(here).relative_to(folder).parts)
        links += [Path(here) / d for d in dirs if (Path(here) / d).is_symlink()]
        dirs[:] = (
            sorted(d for d in dirs if d not in SKIP_FOLDERS and not d.startswith(".")) if depth < MAX_DEPTH else []
        )
        seen += len(dirs)
        for name in sorted(files):
            seen += 1
            if seen > MAX_FILES:
                return found, links
            path = Path(here) / name
            try:
                mode = os.lstat(path).st_mode
            except OSError:
                continue
            if stat.S_ISREG(mode):
                found.append((depth, path))
            elif stat.S_ISLNK(mode):
                links.append(path)
    return found, links


def find_upload(folder: Path, modules: list[str], notebook: str) -> Upload:
    """The student's modules (shallowest copy of each) and their notebook."""
    upload = Upload()
    found, links = _walk(folder)
    files = sorted(found, key=lambda item: (item[0], str(item[1])))
    for _, path in files:
        if path.suffix == ".py" and path.stem in modules and path.stem not in upload.modules:
            upload.modules[path.stem] = path
    for link in sorted(links)[:5]:
        upload.notes.append(f"{shown(link.name)} is a link, not a file: it was not graded (upload the file itself)")
    notebooks = [path for _, path in files if path.suffix == ".ipynb"]
    named = [p for p in notebooks if p.name == notebook] or [
        p for p in notebooks if p.name.startswith(Path(notebook).stem)
    ]
    chosen = (named or notebooks)[:1]
    if chosen:
        upload.notebook = chosen[0]
        if len(notebooks) > 1:
            upload.notes.append(f"the upload has {len(notebooks)} notebooks: {shown(chosen[0].name)} was graded")
    elif upload.modules:
        missing = [m for m in modules if m not in upload.modules]
        if missing:
            upload.notes.append(
                "the upload has no "
                + ", ".join(f"{m}.py" for m in missing)
                + " and no notebook: the functions of those modules score zero"
            )
    else:
        upload.notes.append(
            f"the upload has neither the modules ({', '.join(m + '.py' for m in modules)}) "
            f"nor the notebook {notebook}: nothing could be graded"
        )
    return upload


def stage(course: Course, assignment_id: str, upload: Upload, dest: Path):
    """Write the modules to grade into ``dest``; with a notebook, return its extraction (what it tells
    the student: notes, which file and cell was graded, cell spans, as in the nbgrader feedback), else
    None. Modules and notebook together: per function, the one that implements it is graded
    (:mod:`grader.notebooks.submission`)."""
    found = dest.parent / "upload" if upload.notebook is not None else dest
    found.mkdir(parents=True, exist_ok=True)
    for module, path in upload.modules.items():
        if path.stat().st_size > MAX_MODULE_BYTES:
            upload.notes.append(f"{module}.py is larger than {MAX_MODULE_BYTES >> 20} MB: it was not graded")
            continue
        shutil.copyfile(path, found / f"{module}.py", follow_symlinks=False)
    if upload.notebook is None:
        return None

    notebook, problem = read_notebook(upload.notebook)  # bounded, and never through a link
    if problem:
        upload.notes.append(problem)
    else:
        (found / upload.notebook.name).write_text(json.dumps(notebook), encoding="utf-8")
    functions = [e.function for e in course.assignment(assignment_id).exercises]
    staged, extraction = prepare(course, found, dest, functions)
    if extraction is None:  # the notebook could not be read: the modules alone
        shutil.copytree(found, dest, dirs_exist_ok=True)
    return extraction


def grade(
    course: Course, staged: Path, functions: list[str], log, options: GradingOptions = GradingOptions()
) -> GradeRecord:
    """The hidden tests on the staged modules; nothing the student's code started survives."""
    parcel = Parcel.read("submission", staged, label="submission", only=functions)
    become_subreaper()
    try:
        with sandbox_launcher(
            course,
            mode="require" if course.sandbox.get("require") else "auto",
            warn=log,
            cgroups=options.cgroups,
            bubblewrap=options.bubblewrap,
        ) as launcher:
            return grade_here(course, [parcel], launcher=launcher, only=functions, replay=options.replay)["submission"]
    finally:
        kill_strays()


def run(root: Path, options: GradingOptions = GradingOptions()) -> int:
    started = time.monotonic()
    source, submission, results = root / "source", root / "submission", root / "results"
    if os.geteuid() == 0:
        # Gradescope runs this as root. Student code never does (a sandbox user, or without
        # bubblewrap a user id of its own): the course (hidden tests, solutions) must not be
        # readable by it, nor results/ writable.
        os.chmod(source, 0o700)
        results.mkdir(exist_ok=True)
        os.chmod(results, 0o755)
    manifest = json.loads((source / PACKAGE_FILE).read_text(encoding="utf-8"))
    course = load_course(source / COURSE_DIR, check_tests=False)
    assignment = course.assignment(manifest["assignment"])
    functions = [e.function for e in assignment.exercises]
    print(
        f"grading {assignment.id} of {course.id} (grader {manifest['grader']}; Python {sys.version.split()[0]} "
        f"at {sys.executable}, packaged with Python {manifest['python']})",
        flush=True,
    )
    upload = find_upload(submission, manifest["student_modules"], manifest["notebook"])
    print(
        "found: "
        + (", ".join(sorted(upload.modules) + ([upload.notebook.name] if upload.notebook else [])) or "nothing"),
        flush=True,
    )
    with tempfile.TemporaryDirectory(prefix="grader-submission-") as work:
        extraction = stage(course, assignment.id, upload, Path(work) / "staged")
        record = grade(course, Path(work) / "staged", functions, lambda text: print(text, flush=True), options)
    if extraction is not None:
        labs = [e.function for e in assignment.exercises if e.kind == "lab"]
        record = record.with_extraction(assignment.id, extraction, labs)
    record.notes[GENERAL] = upload.notes + record.notes.get(GENERAL, [])
    record.result.elapsed = time.monotonic() - started  # Gradescope's execution time: the whole run
    out = write_gradescope(record, results, visibility=course.gradescope["visibility"])
    print(f"{record.total:g} of {record.max:g} points; wrote {out}", flush=True)
    return 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m grader.gradescope.autograder",
        description="Grade the submission of a Gradescope autograder container.",
    )
    parser.add_argument(
        "--root",
        default=os.environ.get("GRADESCOPE_ROOT", "/autograder"),
        help="Gradescope's folder holding source/, submission/ and results/ "
        "(default: $GRADESCOPE_ROOT, else /autograder)",
    )
    settings_options(parser)
    args = parser.parse_args(argv)
    try:
        return run(Path(args.root), GradingOptions.from_command_line(args))
    except GraderError as exc:
        print(f"the autograder could not grade this submission: {exc}", flush=True)
        return 1


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
