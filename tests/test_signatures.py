"""No function of the grader takes more than 8 parameters: related settings travel as one record
(:class:`~grader.engine.dispatch.GradingOptions`, :class:`~grader.engine.dispatch.ClassRoster`, ...)."""

from __future__ import annotations

import ast
from pathlib import Path

import grader

MAX_PARAMETERS = 8


def parameters(function: ast.FunctionDef | ast.AsyncFunctionDef) -> list[str]:
    """Its positional and keyword-only parameters, without ``self`` or ``cls`` (``*args`` and ``**kwargs`` aside)."""
    args = function.args
    names = [a.arg for a in args.posonlyargs + args.args + args.kwonlyargs]
    return names[1:] if names[:1] in (["self"], ["cls"]) else names


def test_no_function_of_the_grader_takes_more_than_8_parameters():
    root = Path(grader.__file__).parent
    offenders = []
    for path in sorted(root.rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), filename=str(path))):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and len(parameters(node)) > MAX_PARAMETERS:
                offenders.append(
                    f"{path.relative_to(root.parent)}:{node.lineno} {node.name}() takes {len(parameters(node))}"
                )
    assert not offenders, f"more than {MAX_PARAMETERS} parameters (group them in a record):\n" + "\n".join(offenders)
