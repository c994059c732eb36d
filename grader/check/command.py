"""grader check: run the visible tests on a student's exercises/."""

from __future__ import annotations

import argparse
import tempfile
from pathlib import Path

from rich.console import Console

from grader.core.course import is_kit, load_course
from grader.display import visible
from grader.engine.driver import grade_here
from grader.engine.parcel import Parcel
from grader.errors import GraderError
from grader.feedback import _notes, _where
from grader.notebooks.submission import check_path, notebook_scope, prepare

ALL_PASSED = "visible tests passed; hidden tests will also be run"


def register(sub, common) -> None:
    parser = sub.add_parser(
        "check",
        parents=[common],
        help="students: run the visible tests on your exercises/",
        description="Run the visible tests against your work (default: the course's exercises/ "
        "directory). Passing them is necessary, not sufficient: hidden tests are run when "
        "your work is graded. Exit status 1 when a visible test fails.",
    )
    parser.add_argument(
        "path",
        nargs="?",
        default=None,
        metavar="PATH",
        help="directory shaped like exercises/, one .py file, a notebook or a folder of notebooks "
        "(default: exercises/)",
    )
    parser.add_argument("--only", action="append", metavar="FUNCTION", help="check only this function")
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    course = load_course(args.course)
    default = course.exercises_dir
    if is_kit(course.root):  # an installed kit's stubs are the checker's, not the student's work
        default = Path("exercises")
        if not args.path and not default.is_dir():
            raise GraderError("say what to check: grader check exercises/ (your folder of .py files) or a notebook")
    path = check_path(Path(args.path) if args.path else default)
    console = Console()
    with console.status("running the visible tests ..."), tempfile.TemporaryDirectory(prefix="grader-") as work:
        # A notebook is checked through its extracted modules, as it is graded.
        given = path
        path, extraction = prepare(course, path, Path(work) / "extracted", args.only)
        only = notebook_scope(course, given, extraction, args.only)
        parcel = Parcel.read("you", path, label=str(args.path or "exercises"), only=only)
        record = grade_here(course, [parcel], suite="visible", only=only)["you"]
    if extraction is not None:
        record = record.with_extraction(parcel.label, extraction)
    result = record.result
    failing = 0
    for name, f in result.functions.items():
        for note in _notes(record, name) if extraction is not None else []:
            console.print(f"! {name}: {visible(note)}", markup=False, highlight=False, soft_wrap=True)
        if not f.tests:
            console.print(f"[dim]-[/dim] {name}: no visible tests")
            continue
        passed = sum(t.passed for t in f.tests)
        if passed == len(f.tests):
            console.print(f"[green]✓[/green] {name}: {passed}/{len(f.tests)} visible tests passed")
            continue
        failing += 1
        console.print(f"[red]✗[/red] {name}: {passed}/{len(f.tests)} visible tests passed")
        for message in ([f.error] if f.error else []) + [_where(m, record.spans) for m in f.messages if m != f.error]:
            # soft_wrap: a message stays one line (terminals wrap it; grep still finds it).
            console.print(f"    - {visible(message)}", markup=False, highlight=False, soft_wrap=True)
    answers = [e.function for e in course.exercises if e.kind == "answer" and e.function in result.functions]
    unanswered = [f for f in answers if any("is not answered yet" in m for m in result.functions[f].messages)]
    well_formed = [f for f in answers if result.functions[f].tests and all(t.passed for t in result.functions[f].tests)]
    if answers:
        other = len(answers) - len(well_formed) - len(unanswered)
        console.print(
            f"\nconcept answers: {len(well_formed)} of {len(answers)} written in the right format"
            + (f", {other} malformed or unreadable" if other else "")
            + (f", {len(unanswered)} still None ({', '.join(unanswered)})" if unanswered else "")
            + ". These checks test the format only, never whether an answer is right.",
            markup=False,
            highlight=False,
            soft_wrap=True,
        )
    if failing:
        console.print(f"\n{failing} exercise(s) need more work.")
        return 1
    console.print(f"\n{ALL_PASSED}")
    return 0
