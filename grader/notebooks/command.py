"""grader modules: write the .py modules of a student's completed notebooks (the labs import them)."""

from __future__ import annotations

import argparse
from pathlib import Path

from rich.console import Console

from grader.core.course import load_course
from grader.display import visible
from grader.errors import GraderError


def register(sub, common) -> None:
    parser = sub.add_parser(
        "modules",
        parents=[common],
        help="students: write your notebooks' functions into .py modules (for the labs)",
        description="Write the .py modules of your completed problem-set notebooks (gae.py, ppo_objective.py, ...): "
        "for each module, the course's code, then your solution cells as they are. The lab notebook "
        "imports your functions from these modules, so nothing is copied by hand. Only cells that "
        "implement their function are taken (a stub is left out); an existing module is replaced.",
    )
    parser.add_argument("notebooks", nargs="+", metavar="NOTEBOOK", help="your completed notebooks (.ipynb)")
    parser.add_argument(
        "--out", default=".", metavar="DIR", help="where to write the modules (default: here, the lab's folder)"
    )
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from grader.notebooks.submission import write_modules

    course = load_course(args.course, check_files=False)
    paths = [Path(p) for p in args.notebooks]
    for path in paths:
        if path.suffix != ".ipynb" or not path.is_file():
            raise GraderError(f"{path}: not a notebook (.ipynb)")
    console = Console()
    written = write_modules(course, paths, Path(args.out))
    if not written:
        console.print("no implemented solution cell in these notebooks: nothing written")
        return 1
    for module, notes in written.items():
        console.print(
            f"wrote {visible(str(Path(args.out) / (module + '.py')))}: " + "; ".join(map(visible, notes)),
            markup=False,
            highlight=False,
            soft_wrap=True,
        )
    return 0
