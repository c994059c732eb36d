"""Generate the source notebook of one assignment: an ordered pipeline of cell-making steps.

Each step is a small class whose ``cells(ctx)`` returns the cells it contributes;
:data:`NOTEBOOK_STEPS` fixes their order. A problem-set notebook is made of a
title, the instructions, the assignment's introduction, the course-provided code,
the visible-test helper, then per exercise its context, its solution cell and its
autograded cell. A lab notebook starts from the lab's own notebook source
(``notebooks/<assignment>*.py`` in percent format, or ``.ipynb``) and gains the
autograded cells of its exercises at the end.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

import nbformat
import yaml

from grader.build.percent import read_percent
from grader.build.written import answer_cell_source, questions_of
from grader.core.course import Assignment, Course, Exercise, is_lab
from grader.errors import CourseError
from grader.feedback import format_points
from grader.notebooks import cells as C
from grader.notebooks.segments import ModuleParts, course_modules, setup_code, student_segments

PROSE_FILE = "notebooks/assignments.yaml"
KERNELSPEC = {"display_name": "Python 3", "language": "python", "name": "python3"}


def lab_source(course: Course, assignment: Assignment) -> Path | None:
    """The lab's notebook source: notebooks/<assignment id>*.py or .ipynb."""
    folder = course.root / "notebooks"
    for pattern in (f"{assignment.id}*.ipynb", f"{assignment.id}*.py"):
        found = sorted(folder.glob(pattern)) if folder.is_dir() else []
        if found:
            return found[0]
    return None


def load_prose(course: Course) -> dict:
    path = course.root / PROSE_FILE
    if not path.is_file():
        return {}
    try:
        data = yaml.safe_load(path.read_text(encoding="utf-8")) or {}
    except yaml.YAMLError as exc:
        raise CourseError(f"{PROSE_FILE}: not valid YAML: {exc}") from None
    if not isinstance(data, dict):
        raise CourseError(f"{PROSE_FILE}: must map assignment ids to texts")
    return data


@dataclass
class Context:
    """What the steps of one notebook share."""

    course: Course
    assignment: Assignment
    modules: dict[str, ModuleParts]
    prose: dict
    student: dict[str, str] = field(default_factory=dict)
    warnings: list[str] = field(default_factory=list)

    @property
    def intro(self) -> str:
        entry = self.prose.get(self.assignment.id) or {}
        return str(entry.get("intro", "")) if isinstance(entry, dict) else ""

    @property
    def points(self) -> float:
        return self.assignment.points

    def modules_in_order(self) -> list[ModuleParts]:
        return [self.modules[m] for m in self.assignment.modules if m in self.modules]


# -- steps ------------------------------------------------------------------------------
class Title:
    """The assignment's title, the course and the total points."""

    def cells(self, ctx: Context) -> list:
        course, a = ctx.course, ctx.assignment
        text = (
            f"# {a.title}\n\n"
            f"**{course.title}**, module {course.module_number}: *{course.module_title}*  \n"
            f"Assignment `{a.id}`: {len(a.exercises)} exercise(s)"
            + (f" and {len(a.written)} written answer(s)" if a.written else "")
            + f", {format_points(ctx.points)} points."
        )
        return [C.markdown(text, "title")]


class Instructions:
    """How to work in the notebook and how it is graded."""

    TEXT = """\
### How to work in this notebook

- Run the cells from top to bottom. The first code cells are provided by the course (imports, constants,
  data classes and a small helper); leave them as they are.
- {work}
- A check cell runs the *visible* checks of the {what} above it and prints which check failed and why.
  Passing them is a good sign, not your grade: when the notebook is graded, more checks (the hidden
  tests) run on your {what}s in a separate process.
- What runs when the notebook is graded: the course's own code, then every line of each exercise cell,
  each cell on its own (a `print` or a call you leave in it runs too). Cells you add yourself never run,
  and `%` magics and `!` shell lines are skipped. Keep each {what} in its own cell with its original
  name{signature}, and put any helper it needs in that same cell.
- Grading is per exercise: a cell that does not run (a syntax error, a name defined only in a cell of
  your own, a failing call or `assert`) or that renames its {what} scores zero, and the message names
  the cell and its line; the other exercises keep their points. Printing and warnings cost nothing.
- Before you submit: *Kernel > Restart & Run All*, check that {unfinished},
  save, and hand in this notebook."""

    FUNCTION_TEXT = dict(
        work="Each exercise has a description, **a cell with the function you complete** (replace the\n"
        "  `raise NotImplementedError(...)` line with your code) and a read-only cell of checks.",
        what="function",
        signature=" and signature",
        unfinished="no cell still raises `NotImplementedError`",
    )
    ANSWER_TEXT = dict(
        work="Each question has its text, **a cell with the answer you set** (replace `None` with your\n"
        "  answer, in the format its comment gives) and a read-only cell of checks.",
        what="answer",
        signature="",
        unfinished="no answer is still `None`",
    )

    LAB_TEXT = """\
### How to work in this lab

- The graded work lives in the `.py` files next to this notebook: your modules from the problem sets
  (`gae.py`, `ppo_objective.py`, `response_tokens.py`, ...). If you solved the problem sets in notebooks,
  write your functions into them with one command in this folder (nothing to copy by hand), naming your
  notebooks where they are: `grader modules ../ps4a/ps4a.ipynb ../ps4b/ps4b.ipynb ../ps4c/ps4c.ipynb` when
  each assignment has a folder of its own, `grader modules ps4a.ipynb ps4b.ipynb ps4c.ipynb` when they are
  beside this notebook (the module's student kit; every kit installs `grader`, its README.txt says how).
  It writes the course's code and your solution cells, as they are, into each module.
- `grader check NOTEBOOK` here runs the labs' visible checks with these modules.
- The other modules (the environment, the training loops) belong to the course. You may read them, but
  grading always uses the course's own copies, so changing them changes nothing.
- Run the notebook from top to bottom: each section calls your modules and checks itself.
- The cells under *Graded runs* at the end call the graded lab functions the way the grader does (with
  the smoke budget this takes a few minutes). The hidden tests then judge what your training produced.
- Hand in this notebook together with your `.py` modules."""

    def cells(self, ctx: Context) -> list:
        if is_lab(ctx.assignment):
            text = self.LAB_TEXT.replace("NOTEBOOK", f"{ctx.assignment.id}.ipynb")
        else:
            answers = all(e.kind == "answer" for e in ctx.assignment.exercises)
            text = self.TEXT.format(**(self.ANSWER_TEXT if answers else self.FUNCTION_TEXT))
        return [C.markdown(text, "instructions")]


class Introduction:
    """The assignment's own introduction (notebooks/assignments.yaml)."""

    def cells(self, ctx: Context) -> list:
        if not ctx.intro.strip():
            ctx.warnings.append(f"{ctx.assignment.id}: no introduction in {PROSE_FILE}")
            return []
        return [C.markdown(ctx.intro, "introduction")]


class ProvidedCode:
    """Imports, constants and classes of the assignment's modules, in one read-only cell."""

    def cells(self, ctx: Context) -> list:
        code = setup_code(ctx.modules_in_order())
        header = "# Provided by the course (read-only): imports, constants and classes the exercises use.\n"
        return [C.provided_code(header + code, "provided_code")]


class Helper:
    """The runner the check cells call (read-only, source collapsed)."""

    def cells(self, ctx: Context) -> list:
        return [C.provided_code(C.helper_source(), "check_helper", hidden_source=True)]


class Exercises:
    """Per exercise: the context, the solution cell and the autograded cell."""

    def cells(self, ctx: Context) -> list:
        out = []
        shown_modules: set[str] = set()
        for number, exercise in enumerate(ctx.assignment.exercises, start=1):
            parts = ctx.modules.get(exercise.module)
            if parts is not None and exercise.module not in shown_modules and parts.docstring:
                shown_modules.add(exercise.module)
                out.append(
                    C.markdown(
                        f"## Background: `{exercise.module}`\n\n" + C.rst_to_markdown(parts.docstring),
                        f"about_{exercise.module}",
                    )
                )
            segment = parts.exercises.get(exercise.function) if parts is not None else None
            # The prose comes from the student version: comments inside a region may hold the key.
            public = ctx.student.get(exercise.function)
            out.append(C.markdown(self.context(number, exercise, public), f"context_{exercise.function}"))
            if exercise.kind != "lab":
                if segment is None:
                    raise CourseError(f"{exercise.function} is not defined in solutions/{exercise.module}.py")
                out.append(C.solution_code(segment, exercise.function))
            out.append(C.check_cell(ctx.course, exercise))
        return out

    @staticmethod
    def context(number: int, exercise: Exercise, public_segment: str | None) -> str:
        what = {"function": "function", "answer": "answer", "lab": "lab run"}.get(exercise.kind, exercise.kind)
        label = "Question" if exercise.kind == "answer" else "Exercise"
        title = f"## {label} {number}: `{exercise.function}` ({format_points(exercise.points)} points)"
        if number == 0:
            title = f"## `{exercise.function}` ({format_points(exercise.points)} points)"
        text = C.segment_docstring(public_segment) if public_segment else None
        if exercise.kind == "answer":
            doc = C.question_text(text)
        else:
            doc = C.docstring_context(text)
        if exercise.kind == "lab":
            where = (
                f"The check cell below runs `{exercise.function}` from `{exercise.module}.py` with *your* "
                "modules. When graded, the course runs the same training loop itself and calls your "
                "functions (not your copy of the training code), then evaluates the trained policy."
            )
        elif exercise.kind == "answer":
            where = f"Set `{exercise.function}` in the cell below; the check cell reads its value."
        else:
            where = (
                f"Complete the {what} in the cell below. Its docstring gives the full contract "
                "(parameters, shapes, errors to raise)."
            )
        return title + "\n\n" + (doc + "\n\n" if doc else "") + where


class WrittenAnswers:
    """Per written question of course.yaml (none by default): the question, then an nbgrader manually
    graded answer cell with the configured points, holding the rubric as a solution region."""

    def cells(self, ctx: Context) -> list:
        asked = questions_of(ctx.course, ctx.assignment)
        if not asked:
            return []
        out = [
            C.markdown(
                "## Written answers\n\nAnswer each question below in your own words, in the Markdown "
                "cell under it (replace its text). These answers are graded by hand by the teaching "
                "team; no check cell runs on them.",
                "written_answers",
            )
        ]
        for number, (w, q) in enumerate(asked, start=1):
            out.append(
                C.markdown(
                    f"### Written question {number}: {q.title} ({format_points(w.points)} points)\n\n{q.question}",
                    f"context_{w.grade_id}",
                )
            )
            out.append(C.manual_answer(answer_cell_source(q, w.points), w.grade_id, w.points))
        return out


class Closing:
    def cells(self, ctx: Context) -> list:
        text = (
            "### Done?\n\nRestart the kernel and run every cell: the check cells should all pass. "
            "Then save and submit this notebook"
            + (" together with your `.py` modules." if is_lab(ctx.assignment) else ".")
            + " The hidden tests decide the points; the feedback you get back names the mistakes "
            "they found, exercise by exercise."
        )
        return [C.markdown(text, "closing")]


class LabBody:
    """The lab's own notebook (percent script or .ipynb), as it is."""

    def cells(self, ctx: Context) -> list:
        path = lab_source(ctx.course, ctx.assignment)
        if path is None:
            raise CourseError(f"{ctx.assignment.id}: no lab notebook at notebooks/{ctx.assignment.id}*.py")
        if path.suffix == ".ipynb":
            cells = list(nbformat.read(path, as_version=4).cells)
        else:
            cells = read_percent(path)
        for i, cell in enumerate(cells):
            cell.id = C._cell_id(f"lab-{i}")
            if cell.cell_type == "code":
                cell.outputs, cell.execution_count = [], None
        return cells


class LabGrading:
    """A closing section with the autograded cells of the lab's exercises."""

    def cells(self, ctx: Context) -> list:
        out = [
            C.markdown(
                "## Graded runs\n\nThe cells below are read-only. Each one runs a graded lab function "
                "with your modules, the way the grader does.",
                "graded_runs",
            )
        ]
        for exercise in ctx.assignment.exercises:
            out.append(
                C.markdown(
                    Exercises.context(0, exercise, ctx.student.get(exercise.function)), f"context_{exercise.function}"
                )
            )
            out.append(C.check_cell(ctx.course, exercise))
        return out


NOTEBOOK_STEPS = (
    Title(),
    Instructions(),
    Introduction(),
    ProvidedCode(),
    Helper(),
    Exercises(),
    WrittenAnswers(),
    Closing(),
)
LAB_STEPS = (Title(), Instructions(), Introduction(), Helper(), LabBody(), LabGrading(), WrittenAnswers(), Closing())


def build_notebook(
    course: Course, assignment: Assignment, prose: dict | None = None, warnings: list[str] | None = None
) -> nbformat.NotebookNode:
    """The source notebook (with solutions and hidden tests) of ``assignment``."""
    functions = {e.function for e in assignment.exercises}
    ctx = Context(
        course,
        assignment,
        course_modules(course, functions),
        load_prose(course) if prose is None else prose,
        student=student_segments(course),
    )
    steps = LAB_STEPS if is_lab(assignment) else NOTEBOOK_STEPS
    nb = nbformat.v4.new_notebook()
    nb.metadata = {"kernelspec": dict(KERNELSPEC), "language_info": {"name": "python"}}
    for step in steps:
        nb.cells.extend(step.cells(ctx))
    if warnings is not None:
        warnings.extend(ctx.warnings)
    return nb
