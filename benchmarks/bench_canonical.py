"""The canonical form of one function (grader.similarity.normalise.canonical): CPU and peak memory by size.

`grader similarity` reads every student's function, cut at 40,000 characters
(grader.similarity.code.MAX_FUNCTION_CHARS), into its canonical text in the instructor's process, so its
cost must grow with the code's size, not with its square. Each case runs in a fresh process (its peak
resident memory is the process's, minus nothing: the first line is that of the course's own reference
`gae_advantages`, the baseline of the same run) under an address-space limit (``--limit-gib``, 6 by
default, so a quadratic normaliser fails with MemoryError instead of taking the machine):

- ``bare``: ``a;a;a;...``, a statement of two characters, each one a barrier (an expression);
- ``chain``: ``a=a;a=a;...``, assignments that each depend on the one before;
- ``apart``: ``a0=a0;a1=a1;...``, independent assignments (each reads its own name, so none is dead code),
  all of them put in order by their text;

at 2,000, 4,000, 8,000 and 12,000 statements, and as many as the 40,000-character cut keeps.

    python benchmarks/bench_canonical.py
    python benchmarks/bench_canonical.py --kind bare --statements 4000 --statements 12000
"""

from __future__ import annotations

import argparse
import json
import resource
import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(HERE))

SIGNATURE = "def gae_advantages(rewards, values, next_values, terminated, trace_cuts, gamma, gae_lambda):\n"
CUT = "cut"  # as many statements as the 40,000-character cut keeps


def code_of(kind: str, statements: str) -> str | None:
    """The function's code as `grader similarity` hands it to canonical() (function_code: docstring out); None
    when it is longer than the cut (which would fall in the middle of a statement: a syntax error)."""
    from grader.similarity.code import MAX_FUNCTION_CHARS, function_code

    if kind == "reference":
        return function_code((HERE / "solutions" / "gae.py").read_text(), "gae_advantages")
    body = {"bare": lambda i: "a", "chain": lambda i: "a=a", "apart": lambda i: f"a{i}=a{i}"}[kind]
    if statements != CUT:
        source = SIGNATURE + " " + ";".join(body(i) for i in range(int(statements))) + "\n"
        return None if len(source) > MAX_FUNCTION_CHARS else function_code(source, "gae_advantages")
    parts, size = [], len(SIGNATURE) + 1
    while size + len(body(len(parts))) + 1 < MAX_FUNCTION_CHARS:  # whole statements only: the cut is a syntax
        size += len(body(len(parts))) + 1  # error in the middle of one
        parts.append(body(len(parts)))
    return function_code(SIGNATURE + " " + ";".join(parts) + "\n", "gae_advantages")


def one(kind: str, statements: str, limit_gib: float) -> dict:
    import ast

    from grader.similarity.normalise import canonical

    code = code_of(kind, statements)
    if code is None:
        return {"kind": kind, "statements": statements, "skipped": "beyond the 40,000-character cut"}
    hard = resource.getrlimit(resource.RLIMIT_AS)[1]
    resource.setrlimit(resource.RLIMIT_AS, (int(limit_gib * 2**30), hard))
    cpu = time.process_time()
    result = canonical(code)  # None on MemoryError
    cpu = time.process_time() - cpu
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    resource.setrlimit(resource.RLIMIT_AS, (hard, hard))
    return {
        "kind": kind,
        "statements": len(ast.parse(code).body[0].body),
        "characters": len(code),
        "cpu": cpu,
        "peak_mib": peak,
        "canonical": "yes" if result is not None else f"no (MemoryError under {limit_gib:g} GiB)",
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--kind", action="append", choices=("bare", "chain", "apart"))
    parser.add_argument("--statements", action="append", help=f"a number, or {CUT!r} (default 2000 ... 12000, cut)")
    parser.add_argument("--limit-gib", type=float, default=6.0, help="address space of each case (RLIMIT_AS)")
    parser.add_argument("--one", nargs=2, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.one:
        print(json.dumps(one(*args.one, args.limit_gib)))
        return
    cases = [("reference", "0")] + [
        (kind, n)
        for kind in args.kind or ("bare", "chain", "apart")
        for n in args.statements or ("2000", "4000", "8000", "12000", CUT)
    ]
    print(f"{'case':>9} {'statements':>10} {'characters':>10} {'CPU s':>7} {'peak MiB':>8}  canonical")
    for kind, n in cases:
        done = subprocess.run(
            [sys.executable, __file__, "--one", kind, n, "--limit-gib", str(args.limit_gib)],
            capture_output=True,
            text=True,
        )
        if done.returncode != 0:
            print(f"{kind:>9} {n:>10}: failed ({done.returncode}) {done.stderr.strip().splitlines()[-1:]}")
            continue
        r = json.loads(done.stdout)
        if "skipped" in r:
            print(f"{kind:>9} {n:>10}: {r['skipped']}")
            continue
        print(
            f"{r['kind']:>9} {r['statements']:>10,} {r['characters']:>10,} {r['cpu']:>7.2f} {r['peak_mib']:>8.0f}"
            f"  {r['canonical']}",
            flush=True,
        )


if __name__ == "__main__":
    main()
