"""The layers of grader/ (docs/architecture.md), checked on the import graph of its sources.

The allow-list is the layer table of docs/architecture.md itself, read here: a part (module or
package) in a layer may import the layers its row names, nothing else. The sources are parsed with
:mod:`ast`, never imported, so the check is fast and sees every import, the ones inside functions
and under ``TYPE_CHECKING`` included. ``GRADER_ROOT`` in the environment points the check at another
copy of grader/ (e.g. an old commit's, to see what it would have found).
"""

from __future__ import annotations

import ast
import os
import re
from collections import defaultdict
from pathlib import Path

import pytest

ROOT = Path(os.environ.get("GRADER_ROOT") or Path(__file__).resolve().parents[1] / "grader")
DOCS = Path(__file__).resolve().parents[1] / "docs" / "architecture.md"


def read_layers(text: str) -> tuple[dict[str, list[str]], dict[str, set[str]], set[str]]:
    """(parts by layer, the layers each may import, the layers whose parts may not import each other)
    from the table of docs/architecture.md (| layer | parts | may import |)."""
    rows, inside = [], False
    for line in text.splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if cells == ["layer", "parts", "may import"]:
            inside = True
        elif inside and not line.strip():
            break
        elif inside and len(cells) == 3 and not set(cells[0]) <= {"-"}:
            rows.append(cells)
    names = [row[0] for row in rows]
    parts, allowed, apart = {}, {}, set()
    for layer, listed, may in rows:
        parts[layer] = re.findall(r"`([\w.]+)`", listed)
        words = set(re.findall(r"\w+", may))
        allowed[layer] = set(names) if "every" in words else words & set(names)
        if "own package only" in may:
            apart.add(layer)
    return parts, allowed, apart


LAYERS, ALLOWED, APART = read_layers(DOCS.read_text(encoding="utf-8"))

# Imports of grader modules inside a function, each with why it is not at the top of the module.
# Every other one is an error: an import that dodges a cycle hides a layering mistake.
# Besides these, a command module (grader.<verb>.command, ...) imports its work in `run`, and there
# only: `grader --help` imports every command module at start-up (see is_command).
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
# What no code probes with getattr/hasattr: a protocol says what they have (docs/architecture.md).
PROTOCOLS = {"launcher", "submission", "impl", "worker"}


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
            errors.append(f"{importer}:{line} -> {target}: not in any layer of docs/architecture.md")
        elif b not in ALLOWED[a]:
            errors.append(f"{importer}:{line} -> {target}: {a} imports {b}, which its row does not allow")
        elif a == b and a in APART and p != q:
            errors.append(f"{importer}:{line} -> {target}: {p} imports {q}, another of the {a}")
    return errors


def cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components of ``graph`` with more than one node (Tarjan), each sorted."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        for nxt in sorted(graph.get(node, ())):
            if nxt not in index:
                visit(nxt)
                low[node] = min(low[node], low[nxt])
            elif nxt in on_stack:
                low[node] = min(low[node], index[nxt])
        if low[node] == index[node]:
            component = []
            while True:
                member = stack.pop()
                on_stack.discard(member)
                component.append(member)
                if member == node:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for node in sorted(graph):
        if node not in index:
            visit(node)
    return found


def module_cycles(modules: dict) -> list[list[str]]:
    """Modules that import each other, through any number of others (every import counted: inside
    functions, under TYPE_CHECKING), whether in one package or across packages."""
    graph = defaultdict(set)
    for importer, target, _, _ in imports(modules):
        if importer != target and target in modules:
            graph[importer].add(target)
    return cycles(graph)


def package_cycles(modules: dict) -> list[list[str]]:
    """Parts (packages and top-level modules) that import each other."""

    def unit(module: str) -> str:
        return ".".join(module.split(".")[:2])

    graph = defaultdict(set)
    for importer, target, _, _ in imports(modules):
        if unit(importer) != unit(target):
            graph[unit(importer)].add(unit(target))
    return cycles(graph)


def lazy_errors(modules: dict) -> list[str]:
    errors = []
    for importer, target, function, line in imports(modules):
        exempt = is_command(importer) and function == "run" or (importer, function) in LAZY
        if function is not None and not exempt:
            errors.append(f"{importer}:{line} in {function}() imports {target}")
    return errors


def probing_errors(modules: dict) -> list[str]:
    """``getattr(x, "name")`` / ``hasattr(x, "name")`` on a launcher, a submission, an implementation or a
    worker (``x`` named so, or an attribute of that name): what it has is its protocol's to say."""
    errors = []
    for name, (_, tree) in modules.items():
        for node in ast.walk(tree):
            if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Name)):
                continue
            if node.func.id not in ("getattr", "hasattr") or len(node.args) < 2:
                continue
            target = node.args[0]
            while isinstance(target, ast.Call) and isinstance(target.func, ast.Name) and target.func.id == "getattr":
                target = target.args[0]  # getattr(getattr(impl, ...), ...)
            called = target.attr if isinstance(target, ast.Attribute) else getattr(target, "id", "")
            if called.lstrip("_") in PROTOCOLS:
                errors.append(f"{name}:{node.lineno} {node.func.id}({ast.unparse(node.args[0])}, ...)")
    return errors


def repeated_class_names(modules: dict) -> dict[str, list[str]]:
    """Public class names defined by more than one module (a reader meets one name, two meanings)."""
    where = defaultdict(list)
    for name, (_, tree) in modules.items():
        for node in tree.body:
            if isinstance(node, ast.ClassDef) and not node.name.startswith("_"):
                where[node.name].append(name)
    return {cls: found for cls, found in where.items() if len(found) > 1}


@pytest.fixture(scope="module")
def modules():
    return sources()


def test_the_table_names_every_layer_and_what_it_may_import():
    assert list(LAYERS)[0] == "base" and "core" in LAYERS and "checks" in LAYERS, LAYERS
    assert all(ALLOWED[layer] for layer in LAYERS) and APART == {"verbs"}
    assert "checks" not in ALLOWED["core"] and "sandbox" not in ALLOWED["core"]


def test_every_module_has_a_layer(modules):
    assert [m for m in modules if not part_of(m)[1]] == []


def test_imports_follow_the_layers(modules):
    errors = layering_errors(modules)
    assert not errors, "\n".join(errors)


def test_no_cycle_between_packages(modules):
    found = package_cycles(modules)
    assert not found, "\n".join(" <-> ".join(cycle) for cycle in found)


def test_no_cycle_between_modules(modules):
    found = module_cycles(modules)
    assert not found, "\n".join(" <-> ".join(cycle) for cycle in found)


def test_imports_inside_functions_are_listed(modules):
    errors = lazy_errors(modules)
    assert not errors, "\n".join(errors)
    present = {(importer, function) for importer, _, function, _ in imports(modules)}
    assert [key for key in LAZY if key not in present] == []  # no stale entry keeps a door open


def test_nothing_probes_what_a_protocol_says(modules):
    errors = probing_errors(modules)
    assert not errors, "\n".join(errors)


# Public class names defined twice that landed while the rule was written, each to be renamed by the
# owner of its newer module (its issue in flight); nothing may join them, and a fixed one leaves the list.
REPEATED = {
    "Assignment": "grader.similarity.analyse (#29) beside grader.core.course's",
    "Budget": "grader.lms.source (#27) beside grader.autograde.sanitize's",
    "Submission": "grader.lms.collect (#27) and grader.similarity.sources (#29) beside grader.core.submission's",
}


def test_no_two_public_classes_share_a_name(modules):
    assert set(repeated_class_names(modules)) == set(REPEATED)


def test_the_checks_catch_what_the_old_rules_let_through(tmp_path):
    """Each rule on a made-up tree that breaks it: the core importing the sandbox (below it, but not in its
    row), two modules of one package importing each other from inside functions, a command module importing
    outside ``run``, a launcher probed, a class name twice."""

    def tree(files: dict[str, str]) -> dict:
        return {name: (tmp_path / f"{name}.py", ast.parse(text)) for name, text in files.items()}

    made = tree(
        {
            "grader.core.plugin": "from grader.sandbox import limits\n",
            "grader.sandbox.limits": "class Limits: pass\n",
            "grader.engine.dispatch": "def make():\n    from grader.engine.cluster import run\n",
            "grader.engine.cluster": "def run(d):\n    from grader.engine.dispatch import make\n",
            "grader.grade.command": "def run(args): import grader.engine.dispatch\ndef helper(): import grader.feedback\n",
            "grader.engine.driver": "def f(launcher):\n    return hasattr(launcher, 'spawn')\nclass Limits: pass\n",
        }
    )
    assert [e.split(":")[0] for e in layering_errors(made)] == ["grader.core.plugin"]
    assert module_cycles(made) == [["grader.engine.cluster", "grader.engine.dispatch"]]
    commands = [e.split(" in ")[1] for e in lazy_errors(made) if e.startswith("grader.grade.command")]
    assert commands == ["helper() imports grader.feedback"]  # run's import is the command's own
    assert len(probing_errors(made)) == 1
    assert repeated_class_names(made) == {"Limits": ["grader.sandbox.limits", "grader.engine.driver"]}


# Where the environment is read: the command line's one table (grader/options.py), and what is no setting.
ENVIRONMENT_READS = {
    "grader.options": "the command line: every variable of ENVIRONMENT, as an option's default",
    "grader.notebooks.gradebook": "PATH, extended for the alembic nbgrader runs, then restored",
    "grader.gradescope.autograder": "$GRADESCOPE_ROOT, the default of its own command line's --root",
}


def environment_reads(modules: dict) -> list[str]:
    """Reads of the process's environment (``os.environ.get``, ``os.getenv``, ``os.environ[...]``, ``in
    os.environ``) outside the modules that may (ENVIRONMENT_READS)."""
    found = []
    for name, (_, tree) in modules.items():
        if name in ENVIRONMENT_READS:
            continue
        for node in ast.walk(tree):
            call = isinstance(node, ast.Call) and ast.unparse(node.func) in ("os.environ.get", "os.getenv")
            item = isinstance(node, ast.Subscript) and ast.unparse(node.value) == "os.environ"
            member = isinstance(node, ast.Compare) and any(ast.unparse(c) == "os.environ" for c in node.comparators)
            if call or (item and isinstance(node.ctx, ast.Load)) or member:
                found.append(f"{name}:{node.lineno} {ast.unparse(node)[:80]}")
    return found


def test_only_the_command_line_reads_the_environment(modules):
    """A setting is an option; its environment variable only the option's default, read at the command line
    (docs/architecture.md, "Settings"): nothing deeper decides from the environment."""
    found = environment_reads(modules)
    assert not found, "\n".join(found)
