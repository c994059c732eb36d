"""A function's own code: its definition in a student's source, without the docstring.

The released stub (signature, docstring, ``raise NotImplementedError``) is what every student
starts from: a docstring is cut here, and whatever of the stub remains (the ``def`` line) is
boilerplate that :mod:`grader.similarity.fingerprints` leaves out by its fingerprints. Student
text is only parsed (:mod:`ast`), never run.
"""

from __future__ import annotations

import ast
import re

# A function longer than this is cut here: its fingerprints would cost the grader, and no
# exercise of the course needs a hundredth of it.
MAX_FUNCTION_CHARS = 40_000
_DEF = re.compile(r"^(?:async\s+)?def\s+(\w+)\s*\(", re.M)


def function_code(source: str, function: str) -> str | None:
    """The definition of ``function`` in ``source`` (a module or a notebook cell), without its
    docstring; None when ``source`` does not define it.

    A module that does not parse (a syntax error elsewhere) is read by indentation instead:
    the ``def`` line and the lines indented under it. The last definition wins, as at import.
    """
    try:
        tree = ast.parse(source)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return _by_indentation(source, function)
    found = None
    for node in tree.body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and node.name == function:
            found = node
    if found is None:
        return None
    lines = source.splitlines()
    first = min([found.lineno, *(d.lineno for d in found.decorator_list)]) - 1
    kept = lines[first : found.end_lineno]
    body = found.body
    if body and isinstance(body[0], ast.Expr) and isinstance(getattr(body[0], "value", None), ast.Constant):
        if isinstance(body[0].value.value, str):  # the docstring: the stub's, every student's
            doc_first, doc_last = body[0].lineno - 1 - first, body[0].end_lineno - 1 - first
            prefix = kept[doc_first][: body[0].col_offset]
            suffix = kept[doc_last][body[0].end_col_offset :]
            middle = [prefix + suffix] if (prefix + suffix).strip() else []
            kept = kept[:doc_first] + middle + kept[doc_last + 1 :]
    return "\n".join(kept)[:MAX_FUNCTION_CHARS] + "\n"


def _by_indentation(source: str, function: str) -> str | None:
    """The ``def`` of ``function`` and the lines indented under it (a source that does not parse)."""
    lines = source.splitlines()
    start = None
    for i, line in enumerate(lines):
        match = _DEF.match(line)
        if match and match.group(1) == function:
            start = i
    if start is None:
        return None
    end = start + 1
    while end < len(lines) and (not lines[end].strip() or lines[end][:1] in (" ", "\t")):
        end += 1
    return "\n".join(lines[start:end]).rstrip()[:MAX_FUNCTION_CHARS] + "\n"
