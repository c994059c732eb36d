"""A labelled corpus for ``grader similarity``: independent authors, and disguised copies planted among them.

The blind corpora (tests/data/blind, blind2, blind3, blind4) were each written independently,
from the exercises' docstrings alone; tests/data/correct is another author's, and the course's
reference with its catalogue of known mistakes (solutions/, autograder-tests/mistakes/) is one
more. Each holds, per function, several versions (wrong ones and correct ones) by one author:
versions by the same author share that author's skeleton, so only versions by different authors
are independent work.

A synthetic class (:func:`synthetic_class`) gives each student, per function, one version drawn
from the pool (each version at most once per class while the pool lasts); a pair of students is
*independent* when no function of the assignment comes from the same author for both. Planted
pairs copy another student's code through :func:`disguise` (renamed variables, reformatting,
changed comments, reordered independent statements, dead code), all of it, or 2 of 5 functions.
Used by tests/similarity/test_quality.py and benchmarks/bench_similarity.py.
"""

from __future__ import annotations

import ast
import random
from dataclasses import dataclass, field
from pathlib import Path

from grader.similarity.code import function_code

ROOT = Path(__file__).resolve().parents[1]
DATA = ROOT / "tests" / "data"
AUTHORS = ("blind", "blind2", "blind3", "blind4", "correct")
DISGUISES = ("rename", "reformat", "comments", "reorder", "dead_code", "all")


@dataclass(frozen=True)
class Version:
    function: str
    author: str
    name: str
    code: str  # the function's definition without its docstring


def versions(functions: list[str]) -> dict[str, list[Version]]:
    """function -> every version of it in the corpora, by author (the reference and its mistakes: 'course')."""
    found: dict[str, list[Version]] = {}
    for function in functions:
        pool = []
        for author in AUTHORS:
            for path in sorted((DATA / author / function).glob("*.py")):
                code = function_code(path.read_text(encoding="utf-8"), function)
                if code:
                    pool.append(Version(function, author, path.stem, code))
        for path in sorted((ROOT / "autograder-tests" / "mistakes" / function).glob("*.py")):
            code = function_code(path.read_text(encoding="utf-8"), function)
            if code:
                pool.append(Version(function, "course", path.stem, code))
        found[function] = pool
    return found


# -- disguises ----------------------------------------------------------------------------------
WORDS = ("tmp", "val", "arr", "res", "out", "acc", "buf", "cur", "item", "part", "data", "work", "step", "aux")


class _Rename(ast.NodeTransformer):
    def __init__(self, mapping: dict[str, str]):
        self.mapping = mapping

    def visit_Name(self, node):
        node.id = self.mapping.get(node.id, node.id)
        return node

    def visit_arg(self, node):
        return node  # parameters are the stub's: a copier keeps them

    def visit_comprehension(self, node):
        self.generic_visit(node)
        return node


def _locals(fn: ast.FunctionDef) -> list[str]:
    params = {a.arg for a in (*fn.args.args, *fn.args.kwonlyargs, *fn.args.posonlyargs)}
    names = []
    for node in ast.walk(fn):
        if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store) and node.id not in params:
            names.append(node.id)
    return list(dict.fromkeys(names))


def rename(fn: ast.FunctionDef, rng: random.Random) -> None:
    names = _locals(fn)
    fresh = rng.sample(WORDS, len(WORDS))
    mapping = {n: f"{fresh[i % len(fresh)]}{i // len(fresh) or ''}_{rng.randint(1, 9)}" for i, n in enumerate(names)}
    _Rename(mapping).visit(fn)


def _reads(node: ast.AST) -> set[str]:
    return {n.id for n in ast.walk(node) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load)}


def _writes(node: ast.AST) -> set[str]:
    return {n.id for n in ast.walk(node) if isinstance(n, ast.Name) and isinstance(n.ctx, (ast.Store, ast.Del))}


def _independent(a: ast.stmt, b: ast.stmt) -> bool:
    plain = (ast.Assign, ast.AnnAssign, ast.AugAssign, ast.Expr)
    if not (isinstance(a, plain) and isinstance(b, plain)) or isinstance(a, ast.Expr) or isinstance(b, ast.Expr):
        return False
    wa, wb = _writes(a), _writes(b)
    return not (wa & _reads(b) or wb & _reads(a) or wa & wb)


def reorder(fn: ast.FunctionDef, rng: random.Random) -> int:
    """Swap adjacent independent statements (no name one writes is read or written by the other)."""
    swapped = 0
    for block in [n.body for n in ast.walk(fn) if hasattr(n, "body") and isinstance(n.body, list)]:
        i = 0
        while i + 1 < len(block):
            if _independent(block[i], block[i + 1]) and rng.random() < 0.8:
                block[i], block[i + 1] = block[i + 1], block[i]
                swapped += 1
                i += 2
            else:
                i += 1
    return swapped


DEAD = (
    "{v} = 0",
    "{v} = len(str({p}))",
    "{v} = [None] * 3",
    "if False:\n    {v} = {p}",
    "{v} = {{'unused': True}}",
    "for {v} in range(0):\n    pass",
)


def dead_code(fn: ast.FunctionDef, rng: random.Random) -> None:
    """Insert two or three statements that compute nothing the function uses."""
    param = fn.args.args[0].arg if fn.args.args else "None"
    for _ in range(rng.randint(2, 3)):
        template = rng.choice(DEAD)
        stmt = ast.parse(template.format(v=f"{rng.choice(WORDS)}_unused{rng.randint(0, 99)}", p=param)).body[0]
        fn.body.insert(rng.randint(0, max(0, len(fn.body) - 1)), stmt)


COMMENTS = ("# compute the values", "# TODO check this", "# edge case", "# vectorised", "# see lecture notes")


def comments(text: str, rng: random.Random) -> str:
    """Comments added on their own lines and after code; a copier's own notes."""
    out = []
    for line in text.splitlines():
        if line.strip() and line.startswith("    ") and rng.random() < 0.4:
            indent = line[: len(line) - len(line.lstrip())]
            out.append(indent + rng.choice(COMMENTS))
        out.append(line + (f"  {rng.choice(COMMENTS)}" if line.strip() and rng.random() < 0.2 else ""))
    return "\n".join(out) + "\n"


def reformat(text: str, rng: random.Random) -> str:
    """Spacing, blank lines, quotes and redundant parentheses changed; the tokens' meaning kept."""
    out = []
    for line in text.splitlines():
        stripped = line.strip()
        indent = line[: len(line) - len(line.lstrip())]
        if " = " in stripped and not stripped.startswith(("if ", "for ", "while ", "def ", "return")):
            target, value = stripped.split(" = ", 1)
            if rng.random() < 0.5 and not value.endswith(":"):
                value = f"({value})"
            stripped = f"{target}={value}" if rng.random() < 0.5 else f"{target}  =  {value}"
        stripped = stripped.replace("'", '"') if rng.random() < 0.5 else stripped
        out.append(indent + stripped)
        if rng.random() < 0.25:
            out.append("")
    return "\n".join(out) + "\n"


def disguise(code: str, how: str, rng: random.Random) -> str:
    """``code`` (one function's definition) copied and disguised ``how`` (one of :data:`DISGUISES`)."""
    try:
        tree = ast.parse(code)
    except SyntaxError:
        return comments(code, rng) if how in ("comments", "all") else code
    fn = tree.body[0]
    if how in ("rename", "all"):
        rename(fn, rng)
    if how in ("reorder", "all"):
        reorder(fn, rng)
    if how in ("dead_code", "all"):
        dead_code(fn, rng)
    text = ast.unparse(tree) + "\n"  # the copier's own layout (line breaks, parentheses, quotes)
    if how in ("reformat", "all"):
        text = reformat(text, rng)
    if how in ("comments", "all"):
        text = comments(text, rng)
    return text


# -- a synthetic class ---------------------------------------------------------------------------
@dataclass
class Student:
    sid: str
    code: dict[str, str]  # function -> source
    authors: dict[str, str]  # function -> author of the source (a copy: the original's)
    copied_from: str | None = None
    copied: list[str] = field(default_factory=list)  # the functions copied
    disguise: str = ""


@dataclass
class SyntheticClass:
    functions: list[str]
    students: dict[str, Student]
    planted: set[tuple[str, str]]  # (original, copy) pairs

    def label(self, a: str, b: str) -> str:
        """'planted', 'independent' (no function by the same author) or 'same author'."""
        if (a, b) in self.planted or (b, a) in self.planted:
            return "planted"
        sa, sb = self.students[a], self.students[b]
        if any(sa.authors[f] == sb.authors[f] for f in self.functions):
            return "same author"
        return "independent"


def synthetic_class(
    functions: list[str], k: int, copies: int, seed: int = 0, pool: dict[str, list[Version]] | None = None
) -> SyntheticClass:
    """``k`` independent students, then ``copies`` more, each a disguised copy of one of them: every
    disguise in turn, the whole assignment or 2 of its functions (of 5, or of all when fewer)."""
    rng = random.Random(seed)
    pool = pool or versions(functions)
    decks: dict[str, list[Version]] = {f: [] for f in functions}

    def draw(function: str) -> Version:
        if not decks[function]:  # each version once per pass over the pool
            decks[function] = rng.sample(pool[function], len(pool[function]))
        return decks[function].pop()

    students: dict[str, Student] = {}
    for i in range(k):
        chosen = {f: draw(f) for f in functions}
        sid = f"s{i:04d}"
        students[sid] = Student(sid, {f: v.code for f, v in chosen.items()}, {f: v.author for f, v in chosen.items()})
    planted = set()
    originals = list(students)
    for j in range(copies):
        original = students[rng.choice(originals)]
        how = DISGUISES[j % len(DISGUISES)]
        partial = j % 2 == 1
        copied = rng.sample(functions, 2) if partial and len(functions) > 2 else list(functions)
        chosen = {f: draw(f) for f in functions}
        code = {f: disguise(original.code[f], how, rng) if f in copied else chosen[f].code for f in functions}
        authors = {f: original.authors[f] if f in copied else chosen[f].author for f in functions}
        sid = f"c{j:04d}"
        students[sid] = Student(sid, code, authors, original.sid, copied, how)
        planted.add((original.sid, sid))
    return SyntheticClass(list(functions), students, planted)


def write_class(cls: SyntheticClass, course, dest: Path) -> Path:
    """The class as folders of ``.py`` modules shaped like exercises/ (one folder per student)."""
    for sid, student in cls.students.items():
        modules: dict[str, list[str]] = {}
        for function, code in student.code.items():
            modules.setdefault(course.exercise(function).module, []).append(code)
        folder = dest / sid
        folder.mkdir(parents=True, exist_ok=True)
        for module, codes in modules.items():
            (folder / f"{module}.py").write_text("import numpy as np\n\n\n" + "\n\n".join(codes), encoding="utf-8")
    return dest
