"""Every error a command can raise names only options that command has.

The messages are collected from the source (every ``raise <a GraderError>(...)``), the
commands that can reach each module from the import graph (function-level imports
included), and each command's options from its own ``--help`` parser.
"""

from __future__ import annotations

import argparse
import ast
import importlib
import re
from pathlib import Path

import grader
from grader import cli
from grader.errors import GraderError

PACKAGE = Path(grader.__file__).resolve().parent
FLAG = re.compile(r"(?<![\w/.-])(--[a-z][a-z0-9-]*|-[a-zA-Z])(?![\w-])")


def module_name(path: Path) -> str:
    rel = path.relative_to(PACKAGE.parent).with_suffix("")
    parts = rel.parts[:-1] if rel.name == "__init__" else rel.parts
    return ".".join(parts)


MODULES = {module_name(p): p for p in PACKAGE.rglob("*.py")}
TREES = {name: ast.parse(path.read_text(encoding="utf-8")) for name, path in MODULES.items()}


def imports(name: str) -> set[str]:
    found = set()
    for node in ast.walk(TREES[name]):
        if isinstance(node, ast.Import):
            found |= {a.name for a in node.names}
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            found.add(node.module)
            found |= {f"{node.module}.{a.name}" for a in node.names}
    # A module also runs its packages' __init__.
    closed = set()
    for module in found:
        parts = module.split(".")
        closed |= {".".join(parts[:i]) for i in range(1, len(parts) + 1)}
    return {m for m in closed if m in MODULES}


def reachable(start: str) -> set[str]:
    seen, stack = set(), [start]
    while stack:
        module = stack.pop()
        if module not in seen:
            seen.add(module)
            stack.extend(imports(module) - seen)
    return seen


def error_classes() -> set[str]:
    for name in MODULES:
        if name.endswith("__main__"):
            continue
        try:
            importlib.import_module(name)
        except ImportError:  # an optional extra: its errors are checked by name below anyway
            pass
    names, stack = set(), [GraderError]
    while stack:
        cls = stack.pop()
        names.add(cls.__name__)
        stack.extend(cls.__subclasses__())
    return names


def text_of(node) -> str:
    """The literal text of a message expression (f-string parts, concatenations)."""
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return node.value
    if isinstance(node, ast.JoinedStr):
        return "".join(text_of(v) for v in node.values)
    if isinstance(node, ast.BinOp):
        return text_of(node.left) + " " + text_of(node.right)
    return " "


def messages(errors: set[str]) -> list[tuple[str, int, str]]:
    """(module, line, literal text) of every GraderError raised in the package."""
    found = []
    for name, tree in TREES.items():
        for node in ast.walk(tree):
            if isinstance(node, ast.Raise) and isinstance(node.exc, ast.Call) and node.exc.args:
                func = node.exc.func
                called = func.id if isinstance(func, ast.Name) else getattr(func, "attr", "")
                if called in errors:
                    found.append((name, node.lineno, text_of(node.exc.args[0])))
    return found


def command_options() -> dict[str, tuple[str, set[str]]]:
    """command -> (the module that registers it, every option string it accepts)."""
    out = {}
    common = cli.common_options()
    for module in cli.COMMANDS:
        parser = argparse.ArgumentParser(prog="grader")
        sub = parser.add_subparsers(dest="command")
        importlib.import_module(module).register(sub, common)
        for name, command in sub.choices.items():
            options = {s for action in command._actions for s in action.option_strings}
            out[name] = (module, options)
    return out


def test_every_error_names_only_options_of_the_commands_that_raise_it():
    commands = command_options()
    reach = {name: reachable(module) for name, (module, _) in commands.items()}
    found = messages(error_classes())
    assert len(found) > 40, "the scan found the grader's errors"
    wrong = []
    for module, line, text in found:
        for flag in FLAG.findall(text):
            for command, (_, options) in commands.items():
                if module in reach[command] and flag not in options:
                    wrong.append(
                        f"{MODULES[module].relative_to(PACKAGE.parent)}:{line}: `grader {command}` "
                        f"has no {flag} ({text.strip()[:90]!r})"
                    )
    assert not wrong, "\n".join(sorted(set(wrong)))


def test_the_scan_sees_the_options_of_each_help():
    """The options taken from the parsers are the ones `--help` shows."""
    from tests.helpers import run_grader

    commands = command_options()
    for command in ("grade-class", "autograde"):
        shown = run_grader(command, "--help").stdout
        for option in commands[command][1]:
            assert option in shown, (command, option)
    assert {"--out", "--scheduler", "-j", "--jobs"} <= commands["autograde"][1]
    assert {"--out", "--scheduler", "-j", "--jobs"} <= commands["grade-class"][1]
