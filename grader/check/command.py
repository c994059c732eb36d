"""grader check: run the visible tests on a student's exercises/."""

from __future__ import annotations

import argparse
import tempfile
from pathlib import Path

from rich.console import Console
from rich.text import Text

from grader.core import cache
from grader.core.course import is_kit, kit_manifest, load_course
from grader.core.staging import lab_modules
from grader.display import text, visible
from grader.engine.driver import grade_here
from grader.engine.parcel import Parcel
from grader.errors import GraderError
from grader.feedback import GENERAL, _where, is_information
from grader.notebooks.submission import check_path, notebook_scope, prepare
from grader.options import grading_settings, settings_options

ALL_PASSED = "visible tests passed; hidden tests will also be run"
KIT_WORK = "exercises"  # where a student kit keeps the student's work (grader.build.kit)


def register(sub, common) -> None:
    parser = sub.add_parser(
        "check",
        parents=[common],
        help="students: run the visible tests on your exercises/",
        description="Run the visible tests against your work (default: the course's exercises/ "
        "directory; in a student kit, exercises/ in the current folder). PATH may be a folder of .py "
        "modules and notebooks, one .py file or one notebook (a lab's notebook is checked with the .py "
        "modules beside it, which it runs). Passing the visible tests is necessary, not sufficient: "
        "hidden tests are run when your work is graded. Exit status 1 when a visible test fails.",
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
    settings_options(parser, cache_only=True)
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    cache.configure(grading_settings(args)["cache"])  # the visible property tests' drawn cases
    course = load_course(args.course)
    path = check_path(_what_to_check(course, args.path))
    label = str(args.path or (KIT_WORK if is_kit(course.root) else "exercises"))
    console = Console()
    with console.status("running the visible tests ..."), tempfile.TemporaryDirectory(prefix="grader-") as work:
        # A notebook is checked through its extracted modules, as it is graded.
        staged, extraction = prepare(course, path, Path(work) / "extracted", args.only, beside=True)
        only = notebook_scope(course, path, extraction, args.only) or _kit_scope(course)
        missing = _missing_lab_modules(course, staged, only)
        parcel = Parcel.read("you", staged, label=label, only=only)
        record = grade_here(course, [parcel], suite="visible", only=only)["you"]
    if extraction is not None:
        record = record.with_extraction(parcel.label, extraction)
    for note in record.notes.get(GENERAL, []):
        console.print(f"! {visible(note)}", markup=False, highlight=False, soft_wrap=True)
    folder = label if path.is_dir() else str(path.parent)  # where a lab's modules are looked for
    for lab, modules in missing.items():
        console.print(
            f"! {lab}: the lab runs your {_names(lab_modules(course, lab))}, and {visible(folder)} has no "
            f"{_names(modules)}: put your module{'s' if len(modules) > 1 else ''} there (`grader modules` writes "
            "them from your notebooks)",
            markup=False,
            highlight=False,
            soft_wrap=True,
        )
    failing = _print_results(console, record, extraction)
    _print_answers(console, course, record.result)
    if failing:
        console.print(f"\n{failing} exercise(s) need more work.")
        return 1
    console.print(f"\n{ALL_PASSED}")
    return 0


def _what_to_check(course, path: str | None) -> Path:
    if path:
        return Path(path)
    if not is_kit(course.root):
        return course.exercises_dir
    # An installed kit's stubs are the checker's, not the student's work.
    if not Path(KIT_WORK).is_dir():
        raise GraderError(
            f"say what to check: grader check {KIT_WORK}/ (your folder of .py files and notebooks) or a notebook; "
            f"there is no {KIT_WORK}/ here (run it in your kit's folder)"
        )
    return Path(KIT_WORK)


def _kit_scope(course) -> list[str] | None:
    """In a student kit, its own assignments' exercises (its course may hold more: those whose modules
    its lab runs, for `grader modules`); elsewhere everything (None)."""
    own = kit_manifest(course.root).get("assignments")
    return [e.function for e in course.exercises if e.assignment in own] if own else None


def _missing_lab_modules(course, staged: Path, only: list[str] | None) -> dict[str, list[str]]:
    """lab -> the modules it runs that the staged submission lacks (a lone .py file stands for every module)."""
    if not staged.is_dir():
        return {}
    labs = [e.function for e in course.exercises if e.kind == "lab" and (only is None or e.function in only)]
    missing = {lab: [m for m in lab_modules(course, lab) if not (staged / f"{m}.py").is_file()] for lab in labs}
    return {lab: modules for lab, modules in missing.items() if modules}


def _names(modules) -> str:
    files = [f"{m}.py" for m in modules]
    return files[0] if len(files) == 1 else ", ".join(files[:-1]) + " and " + files[-1]


def _print_results(console: Console, record, extraction) -> int:
    """One line per exercise (with the file and cell checked, for notebooks), its warnings before it and
    its failures under it; returns how many exercises fail."""
    failing = 0
    for name, f in record.result.functions.items():
        notes = record.notes.get(name, []) if extraction is not None else []
        for note in notes:
            if not is_information(note):
                console.print(f"! {name}: {visible(note)}", markup=False, highlight=False, soft_wrap=True)
        # Which file (and cell) was checked: information, on the exercise's own line.
        source = f" ({extraction.graded[name]})" if extraction is not None and name in extraction.graded else ""
        if not f.tests:
            console.print(f"[dim]-[/dim] {name}: no visible tests")
            continue
        passed = sum(t.passed for t in f.tests)
        mark = "[green]✓[/green]" if passed == len(f.tests) else "[red]✗[/red]"
        line = Text.from_markup(f"{mark} {name}: {passed}/{len(f.tests)} visible tests passed")
        line.append(text(source, one_line=True, style="dim"))  # the student's cell text: never markup
        console.print(line, highlight=False, soft_wrap=True)
        if passed == len(f.tests):
            continue
        failing += 1
        for message in ([f.error] if f.error else []) + [_where(m, record.spans) for m in f.messages if m != f.error]:
            # soft_wrap: a message stays one line (terminals wrap it; grep still finds it).
            console.print(f"    - {visible(message)}", markup=False, highlight=False, soft_wrap=True)
    return failing


def _print_answers(console: Console, course, result) -> None:
    """For the concept questions: how many answers are well formed, malformed, still None."""
    answers = [e.function for e in course.exercises if e.kind == "answer" and e.function in result.functions]
    if not answers:
        return
    unanswered = [f for f in answers if any("is not answered yet" in m for m in result.functions[f].messages)]
    well_formed = [f for f in answers if result.functions[f].tests and all(t.passed for t in result.functions[f].tests)]
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
