"""exercises/ is generated from solutions/ and must stay in sync."""

from __future__ import annotations

import ast

import pytest

from grader.core.course import load_course
from grader.core.stubs import has_solution_regions, stale_files, stub_source
from grader.errors import CourseError
from tests.helpers import ROOT, run_grader

COURSE = load_course(ROOT, check_tests=False)


def test_exercises_are_in_sync_with_solutions():
    problems = stale_files(COURSE)
    assert not problems, "exercises/ is stale; run `grader stubs`:\n" + "\n".join(problems)


def test_stubs_check_command_agrees():
    proc = run_grader("stubs", "--check")
    assert proc.returncode == 0, proc.stdout + proc.stderr


@pytest.mark.parametrize("module", COURSE.modules)
def test_every_function_stub_raises_naming_itself(module):
    source = (COURSE.exercises_dir / f"{module}.py").read_text()
    tree = ast.parse(source)
    graded = {e.function for e in COURSE.exercises if e.module == module and e.kind == "function"}
    functions = {n.name: n for n in tree.body if isinstance(n, ast.FunctionDef)}
    for name in graded:
        body = ast.get_source_segment(source, functions[name])
        assert f'raise NotImplementedError("{name} is not implemented yet' in body
        assert ast.get_docstring(functions[name]), f"{name} keeps its docstring"
    assert "### BEGIN SOLUTION" not in source and "### END SOLUTION" not in source


def test_stub_keeps_everything_outside_regions():
    source = '"""Doc."""\nX = 1\n\n\ndef f(a):\n    """Say."""\n    ### BEGIN SOLUTION\n    return a + X\n    ### END SOLUTION\n'
    stub = stub_source(source, "m.py")
    assert "X = 1" in stub and '"""Say."""' in stub and "return a + X" not in stub
    assert 'raise NotImplementedError("f is not implemented yet' in stub
    compile(stub, "m.py", "exec")


@pytest.mark.parametrize(
    "source, problem",
    [
        ("def f():\n    ### BEGIN SOLUTION\n    return 1\n", "never closed"),
        ("def f():\n    return 1\n    ### END SOLUTION\n", "without a matching"),
        (
            "def f():\n    ### BEGIN SOLUTION\n    ### BEGIN SOLUTION\n    return 1\n    ### END SOLUTION\n",
            "inside the region",
        ),
        ("def f(:\n    pass\n", "syntax error"),
    ],
)
def test_malformed_regions_name_file_and_line(source, problem):
    with pytest.raises(CourseError, match=problem) as info:
        stub_source(source, "solutions/bad.py")
    assert str(info.value).startswith("solutions/bad.py:")


def test_course_provided_files_are_marked_as_such():
    assert not has_solution_regions("x = 1\n")
    stub = stub_source("x = 1\n", "solutions/lab.py")
    assert stub.startswith("# Course-provided code")
