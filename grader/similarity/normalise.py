"""One canonical text per function, the same for a copy whatever disguise it wears.

copydetect fingerprints text: it drops whitespace and comments and abstracts names, but a
copy with its statements reordered, dead code added or parentheses changed shares few of its
fingerprints with the original. What no library does for Python is done here, on the syntax
tree (parsed, never run):

- the docstring, ``pass`` and bare constants (strings used as comments) are dropped;
- dead code is dropped: statements after ``return``/``raise``/``break``/``continue``, branches of
  ``if False``/``if 0``/``while False``, loops over ``range(0)`` or an empty literal, and
  assignments to local names that nothing reads (repeated until none is left);
- adjacent statements that do not depend on each other (neither reads or writes a name the other
  writes) are put in one canonical order: a topological order of the block that takes, among the
  statements ready, the one whose text (names abstracted) sorts first. Its dependencies are built
  from each name's last writer and readers, not from every pair of statements, so a student's
  function costs time and memory in proportion to its size (a block of 20,000 statements, the most
  the 40,000-character cut keeps, takes half a second and tens of MiB; every pair took over 6 GiB);
- local names become ``v1``, ``v2``, ... in order of first use (the parameters, which every student
  has from the stub, and module names such as ``np`` keep theirs);
- :func:`ast.unparse` writes the result: one layout, one kind of quotes, no redundant parentheses.

Each line of the canonical text is mapped back to the lines of the student's code it comes from,
so the report marks the student's own lines.
"""

from __future__ import annotations

import ast
import copy
import heapq
from dataclasses import dataclass

FALSE_CONSTANTS = (False, 0, None, "", 0.0)


@dataclass
class Canonical:
    """A function's canonical text, and for each of its lines (from 1), the lines of the original code
    (from 1) it comes from."""

    text: str
    lines: dict[int, tuple[int, int]]


def canonical(code: str) -> Canonical | None:
    """The canonical text of ``code`` (one function's definition); None when it does not parse."""
    try:
        tree = ast.parse(code)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return None
    if not tree.body or not isinstance(tree.body[0], (ast.FunctionDef, ast.AsyncFunctionDef)):
        return None
    fn = tree.body[0]
    try:
        fn.body = _block(fn.body) or [ast.Pass()]
        _drop_unread(fn)
        _reorder(fn)
        _rename(fn)
        text = ast.unparse(ast.fix_missing_locations(tree)) + "\n"
        again = ast.parse(text)
    except (RecursionError, MemoryError, ValueError, SyntaxError):
        return None
    lines: dict[int, tuple[int, int]] = {}
    # The canonical tree and its reparse list their statements in the same order.
    for old, new in zip(_statements(tree), _statements(again)):
        start, end = getattr(old, "lineno", None), getattr(old, "end_lineno", None)
        if start is None:
            continue
        first_body = min((s.lineno for s in _children(new)), default=None)
        last = (first_body - 1) if first_body else new.end_lineno  # a compound statement: its header
        old_last = (min((s.lineno for s in _children(old) if hasattr(s, "lineno")), default=end + 1) - 1) or end
        for line in range(new.lineno, last + 1):
            lines[line] = (start, old_last if _children(old) else end)
    return Canonical(text, lines)


def _statements(tree: ast.AST) -> list[ast.stmt]:
    found = []

    def visit(node):
        for child in ast.iter_child_nodes(node):
            if isinstance(child, ast.stmt):
                found.append(child)
            visit(child)

    visit(tree)
    return found


def _children(stmt: ast.stmt) -> list[ast.stmt]:
    return [c for field in ("body", "orelse", "finalbody", "handlers") for c in getattr(stmt, field, []) or []]


# -- dead code ------------------------------------------------------------------------------------
def _constant(node: ast.AST):
    return node.value if isinstance(node, ast.Constant) else ...


def _empty_loop(node: ast.For) -> bool:
    it = node.iter
    if isinstance(it, (ast.List, ast.Tuple, ast.Set)) and not it.elts:
        return True
    return (
        isinstance(it, ast.Call)
        and isinstance(it.func, ast.Name)
        and it.func.id == "range"
        and len(it.args) == 1
        and _constant(it.args[0]) in (0,)
        and not isinstance(_constant(it.args[0]), bool)
    )


def _block(body: list[ast.stmt]) -> list[ast.stmt]:
    """``body`` without dead code (its nested blocks too)."""
    out: list[ast.stmt] = []
    for stmt in body:
        if isinstance(stmt, ast.Pass):
            continue
        if isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Constant):
            continue  # a string (or number) standing alone: a comment
        if isinstance(stmt, (ast.If, ast.While)) and _constant(stmt.test) is not ...:
            value = _constant(stmt.test)
            if value in FALSE_CONSTANTS and not isinstance(value, str) or value == "":
                out += _block(stmt.orelse)
                continue
            if isinstance(stmt, ast.If):
                out += _block(stmt.body)
                continue
        if isinstance(stmt, ast.For) and _empty_loop(stmt):
            out += _block(stmt.orelse)
            continue
        for field in ("body", "orelse", "finalbody"):
            if isinstance(getattr(stmt, field, None), list) and getattr(stmt, field):
                setattr(stmt, field, _block(getattr(stmt, field)) or [ast.Pass()])
        for handler in getattr(stmt, "handlers", []) or []:
            handler.body = _block(handler.body) or [ast.Pass()]
        out.append(stmt)
        if isinstance(stmt, (ast.Return, ast.Raise, ast.Break, ast.Continue)):
            break  # what follows never runs
    return out


def _loaded(fn: ast.AST) -> set[str]:
    return {n.id for n in ast.walk(fn) if isinstance(n, ast.Name) and not isinstance(n.ctx, ast.Store)}


def _drop_unread(fn: ast.FunctionDef) -> None:
    """Assignments to local names that nothing reads, until none is left."""
    for _ in range(20):
        read = _loaded(fn)
        removed = False
        for node in ast.walk(fn):
            for field in ("body", "orelse", "finalbody"):
                block = getattr(node, field, None)
                if not isinstance(block, list) or not block:
                    continue
                kept = [s for s in block if not _unread(s, read)]
                if len(kept) != len(block):
                    removed = True
                    setattr(node, field, kept or [ast.Pass()])
        if not removed:
            return


def _unread(stmt: ast.stmt, read: set[str]) -> bool:
    if isinstance(stmt, ast.Assign):
        targets = stmt.targets
    elif isinstance(stmt, (ast.AnnAssign, ast.AugAssign)):
        targets = [stmt.target]
    else:
        return False
    names = [n for t in targets for n in ast.walk(t)]
    return all(isinstance(n, (ast.Name, ast.Tuple, ast.List, ast.Store)) for n in names) and not any(
        isinstance(n, ast.Name) and n.id in read for n in names
    )


# -- order --------------------------------------------------------------------------------------
def _effects(stmt: ast.stmt) -> tuple[set[str], set[str], bool]:
    """(names read, names written, is a barrier) of a statement; a store into ``a[i]`` or ``a.x``
    reads and writes ``a``; anything but a plain assignment is a barrier (keeps its place)."""
    reads, writes = set(), set()
    for node in ast.walk(stmt):
        if isinstance(node, ast.Name):
            (writes if isinstance(node.ctx, (ast.Store, ast.Del)) else reads).add(node.id)
        elif isinstance(node, (ast.Subscript, ast.Attribute)) and isinstance(node.ctx, (ast.Store, ast.Del)):
            base = node.value
            while isinstance(base, (ast.Subscript, ast.Attribute)):
                base = base.value
            if isinstance(base, ast.Name):
                reads.add(base.id)
                writes.add(base.id)
    barrier = not isinstance(stmt, (ast.Assign, ast.AnnAssign, ast.AugAssign))
    return reads, writes, barrier


def _key(stmt: ast.stmt, local: set[str]) -> str:
    """The statement's text with its local names abstracted: the same for a copy with renamed variables."""
    clone = copy.deepcopy(stmt)
    for node in ast.walk(clone):
        if isinstance(node, ast.Name) and node.id in local:
            node.id = "_"
    return ast.unparse(clone)


def _order(block: list[ast.stmt], local: set[str]) -> list[ast.stmt]:
    """``block`` in its canonical order. A barrier keeps its place (every statement before it comes
    before, every one after it after), so it splits the block into runs of assignments, each put in
    order on its own: the same order as the whole block's, in time near-linear in the block's size."""
    out: list[ast.stmt] = []
    run: list[tuple[ast.stmt, set[str], set[str]]] = []
    for stmt in block:
        reads, writes, barrier = _effects(stmt)
        if barrier:
            out += _order_run(run, local)
            out.append(stmt)
            run = []
        else:
            run.append((stmt, reads, writes))
    return out + _order_run(run, local)


def _order_run(run: list[tuple[ast.stmt, set[str], set[str]]], local: set[str]) -> list[ast.stmt]:
    """Assignments (statement, names read, names written) in a topological order of their dependencies
    that takes, among the statements ready, the one whose text sorts first.

    ``j`` depends on an earlier ``i`` when one writes a name the other reads or writes. Only the edges
    that carry this order are built: from the last writer of each name ``j`` reads or writes, and from
    the readers of each name ``j`` writes since its last writer. Every other dependency follows from
    these (an earlier writer comes before the last one, an earlier reader before the writer after it),
    so the statements ready at each step, and the order, are those of every pair's dependency; the edges
    are at most twice as many as the names its statements mention, however many pairs it has."""
    n = len(run)
    if n < 2:
        return [stmt for stmt, _, _ in run]
    after: list[list[int]] = [[] for _ in range(n)]
    needs = [0] * n
    writer: dict[str, int] = {}  # name -> the last statement that wrote it
    readers: dict[str, list[int]] = {}  # name -> the statements that read it since
    for j, (_, reads, writes) in enumerate(run):
        before = {writer[x] for x in reads | writes if x in writer}
        for x in writes:
            before.update(readers.get(x, ()))
        for i in before:
            after[i].append(j)
        needs[j] = len(before)
        for x in reads:
            readers.setdefault(x, []).append(j)
        for x in writes:
            writer[x] = j
            readers[x] = []
    keys = [_key(stmt, local) for stmt, _, _ in run]
    ready = [(keys[i], i) for i in range(n) if needs[i] == 0]
    heapq.heapify(ready)
    out = []
    while ready:
        _, i = heapq.heappop(ready)
        out.append(run[i][0])
        for j in after[i]:
            needs[j] -= 1
            if needs[j] == 0:
                heapq.heappush(ready, (keys[j], j))
    return out


def _reorder(fn: ast.FunctionDef) -> None:
    local = _local_names(fn)
    for node in ast.walk(fn):
        for field in ("body", "orelse", "finalbody"):
            block = getattr(node, field, None)
            if isinstance(block, list) and len(block) > 1 and isinstance(block[0], ast.stmt):
                setattr(node, field, _order(block, local))


# -- names ----------------------------------------------------------------------------------------
def _parameters(fn: ast.FunctionDef) -> set[str]:
    params = {a.arg for a in (*fn.args.posonlyargs, *fn.args.args, *fn.args.kwonlyargs)}
    return params | {a.arg for a in (fn.args.vararg, fn.args.kwarg) if a is not None}


def _local_names(fn: ast.FunctionDef) -> set[str]:
    """The names the function assigns, its parameters left out."""
    params = _parameters(fn)
    return {n.id for n in ast.walk(fn) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store)} - params


def _rename(fn: ast.FunctionDef) -> None:
    """Local names (assigned in the function) become v1, v2, ... in order of first appearance."""
    params = _parameters(fn)
    local = _local_names(fn)
    names: dict[str, str] = {}
    for node in ast.walk(fn):
        if isinstance(node, ast.Name) and node.id in local and node.id not in names:
            names[node.id] = f"v{len(names) + 1}"
        elif isinstance(node, ast.arg) and node.arg not in params and node.arg not in names:
            names[node.arg] = f"v{len(names) + 1}"  # a lambda's or a nested function's parameter
    for node in ast.walk(fn):
        if isinstance(node, ast.Name) and node.id in names:
            node.id = names[node.id]
        elif isinstance(node, ast.arg) and node.arg in names:
            node.arg = names[node.arg]
