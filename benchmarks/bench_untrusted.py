"""Benchmark: what treating every submission as hostile data costs on the nbgrader path.

Each figure is compared with a baseline measured in the same run, on the same data:

- reading a notebook (bounded read, container count, JSON, :func:`check_notebook`) and
  extracting its modules, against plain ``json.loads`` + ``nbformat.from_dict`` (what
  extraction did before) on the real ps4b notebook with every solution filled in;
- :func:`sanitize_notebook` of an autograded ps4b notebook, against nbconvert rendering
  the same notebook to HTML (what ``generate_feedback`` spends on it anyway);
- the link and pipe walk of a submission folder (:func:`refused_entries`);
- collecting an LMS download of K notebooks with :func:`collect_zip`, against
  ``nbgrader zip_collect`` on the same archive (what ``--zip`` ran before).

Usage: python benchmarks/bench_untrusted.py [--students K] [--repeat N]
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import tempfile
import time
import zipfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def best(fn, repeat: int) -> float:
    """Median seconds of ``fn()`` over ``repeat`` runs."""
    times = []
    for _ in range(repeat):
        started = time.perf_counter()
        fn()
        times.append(time.perf_counter() - started)
    return statistics.median(times)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--students", type=int, default=200, help="notebooks in the LMS download (default 200)")
    parser.add_argument("--repeat", type=int, default=20, help="runs per in-process figure (median reported)")
    args = parser.parse_args()
    sys.path.insert(0, str(ROOT))
    import nbformat
    from nbconvert import HTMLExporter

    from grader.autograde.preprocessors import fill_outputs
    from grader.autograde.sanitize import rendered_markdown, sanitize_notebook
    from grader.build.nbgrader_run import run_nbgrader
    from grader.build.notebook import build_notebook
    from grader.core.course import load_course
    from grader.core.results import SubmissionResult, score_function
    from grader.engine.record import GradeRecord
    from grader.notebooks.extract import check_notebook, extract_submission, notebooks_of, read_notebook
    from grader.notebooks.segments import assignment_modules
    from grader.untrusted import refused_entries

    course = load_course(ROOT, check_files=False)
    ps4b = course.assignment("ps4b")
    modules = assignment_modules(course, ps4b)
    nb = build_notebook(course, ps4b)  # the instructor's version: every solution cell filled in
    text = nbformat.writes(nb)
    print(f"ps4b notebook: {len(text) / 1024:.0f} KB, {len(nb.cells)} cells; median of {args.repeat} runs")
    with tempfile.TemporaryDirectory() as tmp:
        tmp = Path(tmp)
        folder = tmp / "submitted" / "alice" / "ps4b"
        folder.mkdir(parents=True)
        (folder / "ps4b.ipynb").write_text(text)

        def plain():  # what reading a notebook was: no bound, no check
            nbformat.from_dict(json.loads((folder / "ps4b.ipynb").read_text()))

        def checked():  # bounded read without links, container count, JSON, check_notebook
            data, _ = read_notebook(folder / "ps4b.ipynb")
            check_notebook(data)

        def extract():
            notebooks, problems = notebooks_of(folder, ["ps4b.ipynb"])
            extract_submission(course, ps4b, notebooks, problems, folder, tmp / "out", modules=modules)

        base, ours = best(plain, args.repeat), best(checked, args.repeat)
        whole, walk = best(extract, args.repeat), best(lambda: refused_entries(folder), args.repeat)
        print(
            f"  read and check a notebook: {ours * 1e3:.2f} ms (json.loads + nbformat.from_dict: {base * 1e3:.2f} ms, "
            f"{ours / base:.1f}x); the whole extraction, walk included: {whole * 1e3:.1f} ms"
        )
        print(f"  link/pipe walk of the submission folder: {walk * 1e6:.0f} us")

        result = SubmissionResult(
            "x", {e.function: score_function(course, e.function, [], "not implemented") for e in ps4b.exercises}
        )
        record = GradeRecord("alice", "alice/ps4b", result).with_extraction(
            "ps4b", extract_submission(course, ps4b, [nb], [], None, tmp / "o2", modules=modules)
        )
        graded = fill_outputs(nbformat.reads(text, as_version=4), record)
        copy = nbformat.writes(graded)

        def cold():  # the first notebook of a class: every markdown cell rendered
            rendered_markdown.cache_clear()
            sanitize_notebook(nbformat.reads(copy, as_version=4))

        sanitize = best(cold, args.repeat)
        warm = best(lambda: sanitize_notebook(nbformat.reads(copy, as_version=4)), args.repeat)
        exporter = HTMLExporter(template_name="classic")
        render = best(lambda: exporter.from_notebook_node(graded), max(3, args.repeat // 4))
        print(
            f"  sanitize the autograded notebook: {sanitize * 1e3:.1f} ms, the next ones of the class "
            f"{warm * 1e3:.1f} ms (the course's markdown is rendered once); nbconvert renders it in "
            f"{render * 1e3:.1f} ms ({sanitize / render:.2f}x of what feedback costs anyway)"
        )

        # An LMS download: one notebook per student, as <student>_ps4b.ipynb.
        archive = tmp / "ps4b_download.zip"
        with zipfile.ZipFile(archive, "w", zipfile.ZIP_DEFLATED) as zf:
            for i in range(args.students):
                zf.writestr(f"student{i:04d}_ps4b.ipynb", text)
        size = archive.stat().st_size
        course_dir = tmp / "course"
        proc = subprocess.run(
            [sys.executable, "-m", "grader", "build", "--course-dir", str(course_dir), "--assignment", "ps4b"],
            cwd=ROOT,
            capture_output=True,
            text=True,
        )
        if proc.returncode != 0:
            sys.exit(proc.stdout + proc.stderr)
        from grader.autograde.zipcollect import LmsDownload, collect_zip

        ours = best(lambda: collect_zip(course_dir, "ps4b", LmsDownload(archive), ["ps4b.ipynb"]), 3)

        def nbgrader_zip_collect():
            folder = course_dir / "downloaded" / "ps4b" / "archive"
            folder.mkdir(parents=True, exist_ok=True)
            (folder / archive.name).write_bytes(archive.read_bytes())
            run_nbgrader(
                course_dir,
                "zip_collect",
                "ps4b",
                "--force",
                r"--FileNameCollectorPlugin.named_regexp=(?P<student_id>[^_]+)_(?P<file_id>.+)",
            )

        theirs = best(nbgrader_zip_collect, 3)
        print(
            f"  --zip with {args.students} notebooks ({size / 2**20:.1f} MB zipped): collect_zip {ours:.2f} s, "
            f"nbgrader zip_collect {theirs:.2f} s ({theirs / ours:.1f}x)"
        )


if __name__ == "__main__":
    main()
