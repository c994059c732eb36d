"""A tiny course for the grader's own tests of sandboxing and class grading.

Three functions over two modules, short time limits and small sandbox limits, so
hostile submissions and whole-class runs finish in seconds, independently of the
real course as it evolves. Written into a temporary directory by :func:`make_toy_course`.
"""

from __future__ import annotations

import shutil
import textwrap
from pathlib import Path

from tests.helpers import ROOT

TIME_LIMIT = 3.0

COURSE_YAML = """\
course: {id: toy, title: Toy course, module: 0, module_title: Arithmetic for the grader's tests}
defaults:
  time_limit: %(time_limit)s
  property_examples: 5
sandbox:
  memory_mb: 512
  cpu_seconds: 30
  processes: 16
  file_size_mb: 2
  open_files: 64
  output_kb: 8
assignments:
  - id: a1
    title: Doubling and adding
    exercises:
      - {function: double, module: toy, points: 2, visible: false}
      - {function: add, module: toy, points: 1, visible: false}
  - id: a2
    title: Scaling
    exercises:
      - {function: scale, module: other, points: 1, visible: false}
"""

SOLUTIONS = {
    "toy.py": '''
        """Doubling and adding."""

        import numpy as np


        def double(x):
            """Twice ``x``, as a float array."""
            ### BEGIN SOLUTION
            return 2.0 * np.asarray(x, dtype=float)
            ### END SOLUTION


        def add(a, b):
            """``a + b`` for two numbers."""
            ### BEGIN SOLUTION
            return float(a) + float(b)
            ### END SOLUTION
        ''',
    "other.py": '''
        """Scaling."""

        import numpy as np


        def scale(x, factor):
            """``x`` times ``factor``, as a float array."""
            ### BEGIN SOLUTION
            return np.asarray(x, dtype=float) * factor
            ### END SOLUTION
        ''',
}

HIDDEN_TESTS = {
    "test_double.py": """
        import numpy as np

        from grader.testing import expect_close


        def test_small(impl, reference):
            x = np.array([1.0, -2.5, 3.0])
            expect_close(impl.double(x), reference.double(x), "double does not return twice its input")


        def test_zero(impl, reference):
            expect_close(impl.double(np.zeros(4)), np.zeros(4), "double of zeros is not zeros")


        def test_many(impl, reference):
            for n in range(1, 6):
                x = np.linspace(-1.0, 1.0, n)
                expect_close(impl.double(x), reference.double(x), "double is wrong on longer inputs")
        """,
    "test_add.py": """
        from grader.testing import expect_close


        def test_add(impl, reference):
            expect_close(impl.add(2.0, 3.5), 5.5, "add does not add")


        def test_add_negative(impl, reference):
            expect_close(impl.add(-2.0, 1.0), reference.add(-2.0, 1.0), "add is wrong for negative numbers")
        """,
    "test_scale.py": """
        import numpy as np

        from grader.testing import expect_close


        def test_scale(impl, reference):
            x = np.arange(4.0)
            expect_close(impl.scale(x, 3.0), reference.scale(x, 3.0), "scale does not multiply by the factor")
        """,
}

STUBS = {
    "toy.py": '''
        """Doubling and adding."""

        import numpy as np


        def double(x):
            """Twice ``x``, as a float array."""
            raise NotImplementedError("double is not implemented yet")


        def add(a, b):
            """``a + b`` for two numbers."""
            raise NotImplementedError("add is not implemented yet")
        ''',
    "other.py": '''
        """Scaling."""

        import numpy as np


        def scale(x, factor):
            """``x`` times ``factor``, as a float array."""
            raise NotImplementedError("scale is not implemented yet")
        ''',
}


def _write(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(textwrap.dedent(text).lstrip("\n"), encoding="utf-8")


def make_toy_course(root: Path, *, time_limit: float = TIME_LIMIT) -> Path:
    """Write the toy course into ``root`` (created) and return it."""
    root = Path(root)
    root.mkdir(parents=True, exist_ok=True)
    (root / "course.yaml").write_text(COURSE_YAML % {"time_limit": time_limit}, encoding="utf-8")
    for name, text in SOLUTIONS.items():
        _write(root / "solutions" / name, text)
    for name, text in STUBS.items():
        _write(root / "exercises" / name, text)
    for name, text in HIDDEN_TESTS.items():
        _write(root / "autograder-tests" / "hidden" / name, text)
    (root / "autograder-tests" / "visible").mkdir(parents=True, exist_ok=True)
    for name in ("conftest.py", "pytest.ini"):
        shutil.copy(ROOT / "autograder-tests" / name, root / "autograder-tests" / name)
    return root


def solution_source() -> str:
    """One file holding every reference function: a correct single-file submission."""
    parts = []
    for text in SOLUTIONS.values():
        lines = textwrap.dedent(text).splitlines()
        parts.append("\n".join(line for line in lines if "### " not in line))
    return "\n\n".join(parts) + "\n"


def wrong_source() -> str:
    """A single-file submission: double is wrong (adds instead), the rest correct."""
    return solution_source().replace(
        "return 2.0 * np.asarray(x, dtype=float)", "return np.asarray(x, dtype=float) + 2.0"
    )


def looping_source() -> str:
    """A single-file submission whose double never returns; the rest correct."""
    return solution_source().replace("return 2.0 * np.asarray(x, dtype=float)", "while True:\n        pass")


SAMPLE_CLASS = {
    "ada": "correct",
    "ben": "correct",
    "chloe": "wrong",
    "dev": "correct",
    "emma": "half",
    "farid": "wrong",
    "gus": "correct",
    "hana": "looping",
    "ivan": "correct",
    "jo": "half",
    "kai": "correct",
    "lena": "wrong",
}


def write_sample_class(directory: Path) -> Path:
    """Twelve single-file submissions of the toy course: correct, wrong, half right, one endless loop."""
    variants = {
        "correct": solution_source(),
        "wrong": wrong_source(),
        "looping": looping_source(),
        "half": wrong_source().replace("return float(a) + float(b)", "return float(a) - float(b)"),
    }
    directory = Path(directory)
    directory.mkdir(parents=True, exist_ok=True)
    for name, kind in SAMPLE_CLASS.items():
        (directory / f"{name}.py").write_text(variants[kind])
    return directory


# -- the toy course as an nbgrader course (assignment a1: double and add) -----------------------
NOTEBOOK_CELLS = {
    "double": "import numpy as np\n\n\ndef double(x):\n    return 2.0 * np.asarray(x, dtype=float)\n",
    "add": "def add(a, b):\n    return float(a) + float(b)\n",
}


def build_nbgrader_course(root: Path) -> tuple[Path, Path]:
    """The toy course in ``root/course`` and its nbgrader course directory (``grader build`` of a1)
    in ``root/built``."""
    from tests.helpers import run_grader

    course = make_toy_course(root / "course")
    proc = run_grader(
        "build", "--course", str(course), "--course-dir", str(root / "built"), "--assignment", "a1", cwd=root
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr
    return course, root / "built"


def shared_nbgrader_course(tmp_path_factory) -> tuple[Path, Path]:
    """:func:`build_nbgrader_course`, made once per test run for every module that only reads it
    or copies it before changing it (a build is a `grader build` and an nbgrader process).

    Under pytest-xdist every worker asks: the first builds it under a lock in the run's common
    temporary directory, the others wait for it.
    """
    import fcntl
    import os

    base = tmp_path_factory.getbasetemp()
    if os.environ.get("PYTEST_XDIST_WORKER"):
        base = base.parent  # each worker's basetemp is a folder of the run's
    root, done = base / "shared-toy-nbgrader", base / "shared-toy-nbgrader.done"
    with open(base / "shared-toy-nbgrader.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if not done.is_file():
            shutil.rmtree(root, ignore_errors=True)  # what a failed build left
            build_nbgrader_course(root)
            done.touch()
    return root / "course", root / "built"


def a1_notebook(course_dir: Path, cells: dict[str, str] = NOTEBOOK_CELLS) -> str:
    """The released a1 notebook with ``cells`` (grade id -> source) in its solution cells."""
    import nbformat

    nb = nbformat.read(course_dir / "release/a1/a1.ipynb", as_version=4)
    for cell in nb.cells:
        meta = cell.metadata.get("nbgrader", {})
        if meta.get("solution") and meta.get("grade_id") in cells:
            cell.source = cells[meta["grade_id"]]
    return nbformat.writes(nb)
