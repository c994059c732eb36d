"""The layers of grader/ (docs/architecture.md), checked on the import graph of its sources.

The sources are parsed with :mod:`ast`, never imported, so the check is fast and sees every
import, the ones inside functions included. ``GRADER_ROOT`` in the environment points the
check at another copy of grader/ (e.g. an old commit's, to see what it would have found).
"""

from __future__ import annotations

import ast
import os
from collections import defaultdict
from pathlib import Path

import pytest

ROOT = Path(os.environ.get("GRADER_ROOT") or Path(__file__).resolve().parents[1] / "grader")

# Layers, lowest first: a module may import its own layer and the layers below it, nothing above.
# A part is a module or package prefix; the longest prefix that matches a module names its part.
LAYERS = {
    "base": [
        "grader",
        "grader.errors",
        "grader.display",
        "grader.options",
        "grader.calendar",
        "grader.untrusted",
        "grader.edition",
    ],
    "worker": ["grader.worker"],
    "sandbox": ["grader.sandbox"],
    # grader.testing and grader.answers are the API the hidden and visible tests import by these names.
    "core": ["grader.core", "grader.testing", "grader.answers"],
    "engine": ["grader.engine"],
    "shared": ["grader.feedback", "grader.notebooks", "grader.lms"],
    "verbs": [
        "grader.check",
        "grader.stubs",
        "grader.build",
        "grader.autograde",
        "grader.classgrade",
        "grader.grade",
        "grader.report",
        "grader.export",
        "grader.gradescope",
        "grader.studentfeedback",
        "grader.similarity",
        "grader.notebooks.command",
    ],
    # The entry points: the dispatcher, and the demo, which runs build, grade-class and report in a row.
    "entry": ["grader.cli", "grader.__main__", "grader.demo"],
}
ORDER = list(LAYERS)
# Parts of a layer that may not import each other (a verb never imports another verb).
APART = {"verbs"}
# Parts whose modules count as one unit for the cycle check (the core's two public modules with its package).
UNITS = {"grader.testing": "grader.core", "grader.answers": "grader.core"}

# Imports of grader modules inside a function, each with why it is not at the top of the module.
# Every other one is an error: an import that dodges a cycle hides a layering mistake.
# Besides these, a command module (grader.<verb>.command, ...) imports its work in `run`: `grader --help`
# imports every command module at start-up (see is_command).
LAZY = {
    # The Dask backend imports dask, which a class graded on this machine never needs.
    ("grader.engine.dispatch", "make_backend"): "dask is heavy and optional (the cluster extra)",
    # nbgrader is the optional `instructor` extra; the build's notebook steps run without it.
    ("grader.build.pipeline", "WriteConfig.__call__"): "nbgrader (the gradebook) is optional",
    ("grader.build.pipeline", "grades_stay_behind"): "nbgrader (the gradebook) is optional",
    ("grader.build.pipeline", "Release.__call__"): "nbgrader (the gradebook) is optional",
    # Runs inside a student's notebook, where the grader may not be installed (ImportError is caught).
    ("grader.notebooks.notebook_runtime", "run_visible_tests"): "optional in a student's notebook",
}
COMMANDS = ("grader.engine.credentials", "grader.build.leak_command")


def is_command(module: str) -> bool:
    return module.endswith(".command") or module in COMMANDS


def module_name(path: Path) -> str:
    parts = list(path.relative_to(ROOT.parent).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def sources() -> dict[str, tuple[Path, ast.Module]]:
    return {module_name(p): (p, ast.parse(p.read_text(encoding="utf-8"), str(p))) for p in sorted(ROOT.rglob("*.py"))}


def enclosing_functions(tree: ast.Module) -> dict[int, str]:
    """For each node inside a function, the qualified name of the outermost one (``Class.method``)."""
    found: dict[int, str] = {}

    def visit(node: ast.AST, prefix: str) -> None:
        for child in ast.iter_child_nodes(node):
            if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef)):
                name = prefix + child.name
                for inner in ast.walk(child):
                    found[id(inner)] = name
            elif isinstance(child, ast.ClassDef):
                visit(child, f"{prefix}{child.name}.")
            else:
                visit(child, prefix)

    visit(tree, "")
    return found


def imports(modules: dict) -> list[tuple[str, str, str | None, int]]:
    """(importer, imported module, enclosing function's qualified name or None, line) for every import
    of a grader module."""
    found = []
    for name, (path, tree) in modules.items():
        package = name if path.name == "__init__.py" else name.rpartition(".")[0]
        functions = enclosing_functions(tree)
        for node in ast.walk(tree):
            if isinstance(node, ast.Import):
                targets = [a.name for a in node.names]
            elif isinstance(node, ast.ImportFrom):
                base = node.module or ""
                if node.level:
                    up = package.split(".")[: len(package.split(".")) - node.level + 1]
                    base = ".".join(up + ([base] if base else []))
                # `from grader.core import plugin` imports the module grader.core.plugin
                targets = [f"{base}.{a.name}" if f"{base}.{a.name}" in modules else base for a in node.names]
            else:
                continue
            for target in dict.fromkeys(targets):
                if target == "grader" or target.startswith("grader."):
                    found.append((name, target, functions.get(id(node)), node.lineno))
    return found


def part_of(module: str) -> tuple[str, str]:
    """The (part, layer) of ``module``: the longest prefix listed in LAYERS (``grader`` is the package's
    own module only, so a new top-level module needs a place in LAYERS)."""
    best = ("", "")
    for layer, parts in LAYERS.items():
        for part in parts:
            inside = module.startswith(part + ".") and part != "grader"
            if (module == part or inside) and len(part) > len(best[0]):
                best = (part, layer)
    return best


def layering_errors(modules: dict) -> list[str]:
    errors = []
    for importer, target, _, line in imports(modules):
        (p, a), (q, b) = part_of(importer), part_of(target)
        if not a or not b:
            errors.append(f"{importer}:{line} -> {target}: not in any layer of LAYERS")
        elif ORDER.index(b) > ORDER.index(a):
            errors.append(f"{importer}:{line} -> {target}: {a} imports {b}, a layer above it")
        elif a == b and a in APART and p != q:
            errors.append(f"{importer}:{line} -> {target}: {p} imports {q}, another of the {a}")
    return errors


def package_cycles(modules: dict) -> list[list[str]]:
    """Cycles among the parts (packages and top-level modules), every import counted."""

    def unit(module: str) -> str:
        parts = module.split(".")
        top = ".".join(parts[:2])
        return UNITS.get(top, top)

    graph = defaultdict(set)
    for importer, target, _, _ in imports(modules):
        if unit(importer) != unit(target):
            graph[unit(importer)].add(unit(target))
    cycles, done = [], set()

    def visit(node: str, path: list[str]) -> None:
        for nxt in sorted(graph[node]):
            if nxt in path:
                cycle = path[path.index(nxt) :]
                if frozenset(cycle) not in done:
                    done.add(frozenset(cycle))
                    cycles.append(cycle + [nxt])
            elif len(path) < 12:
                visit(nxt, path + [nxt])

    for start in sorted(graph):
        visit(start, [start])
    return cycles


def lazy_errors(modules: dict) -> list[str]:
    errors = []
    for importer, target, function, line in imports(modules):
        if function is not None and not is_command(importer) and (importer, function) not in LAZY:
            errors.append(f"{importer}:{line} in {function}() imports {target}")
    return errors


@pytest.fixture(scope="module")
def modules():
    return sources()


def test_every_module_has_a_layer(modules):
    assert [m for m in modules if not part_of(m)[1]] == []


def test_imports_follow_the_layers(modules):
    errors = layering_errors(modules)
    assert not errors, "\n".join(errors)


def test_no_cycle_between_packages(modules):
    cycles = package_cycles(modules)
    assert not cycles, "\n".join(" -> ".join(cycle) for cycle in cycles)


def test_imports_inside_functions_are_listed(modules):
    errors = lazy_errors(modules)
    assert not errors, "\n".join(errors)
    present = {(importer, function) for importer, _, function, _ in imports(modules)}
    assert [key for key in LAZY if key not in present] == []  # no stale entry keeps a door open
