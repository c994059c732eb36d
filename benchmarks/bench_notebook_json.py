"""Benchmark: the grader's memory on a notebook of many small JSON values (the review's A14).

Only brackets used to be counted before ``json.loads``: 63 MB of ``1e1,`` (16 million floats in one
array, two brackets) is 843 MB of grader. Now values are counted too (commas and brackets) and such
a notebook is refused before it is parsed. Each figure is a fresh process's peak resident memory
(``ru_maxrss``), against baselines measured in the same run:

- reading the notebook as extraction does (bounded read, counts, ``json.loads``, ``check_notebook``),
  and the same without the value count (what extraction did before), on the real ps4b notebook
  (solutions filled in) and on ps4b with 63 MB of ``1e1,`` in its metadata;
- ``grader grade NOTEBOOK --only gae_advantages`` on both (what the review measured; its worker
  processes included);
- the worst notebooks still read, at the bounds: ``MAX_JSON_VALUES`` floats, strings and distinct
  object keys, ``MAX_JSON_CONTAINERS`` one-member objects.

Usage: python benchmarks/bench_notebook_json.py [--mb 63] [--skip-grade]
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

# The peak of this process's own memory (VmHWM): ru_maxrss would count the parent's memory at the fork.
READ = r"""
import json, sys, time
from grader.notebooks.extract import MAX_NOTEBOOK_BYTES, check_notebook, read_notebook
from grader.untrusted import read_regular
started = time.perf_counter()
if sys.argv[2] == "bounded":
    data, problem = read_notebook(sys.argv[1])
else:  # before: brackets counted (there are two), then parsed
    data, problem = json.loads(read_regular(sys.argv[1], MAX_NOTEBOOK_BYTES).decode()), None
if data is not None:
    check_notebook(data)
seconds = time.perf_counter() - started
peak = next(int(line.split()[1]) for line in open("/proc/self/status") if line.startswith("VmHWM:"))
print(json.dumps({"peak": peak / 1024, "seconds": seconds, "problem": problem}))
"""
CHILDREN = r"""
import json, resource, subprocess, sys, time
started = time.perf_counter()
proc = subprocess.run(sys.argv[1:], capture_output=True, text=True)
print(json.dumps({"peak": resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024,
                  "seconds": time.perf_counter() - started, "rc": proc.returncode,
                  "out": (proc.stdout + proc.stderr)[-300:]}))
"""


def measure(script: str, *args: str) -> dict:
    proc = subprocess.run(
        [sys.executable, "-c", script, *args], cwd=ROOT, capture_output=True, text=True, check=True, timeout=1800
    )
    return json.loads(proc.stdout.strip().splitlines()[-1])


def notebook_with(base: str, values: str) -> str:
    head, tail = base.rsplit("}", 1)
    return head + ', "junk": ' + values + "}" + tail


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--mb", type=int, default=63, help="size of the flood of 1e1 values, in MiB (default 63)")
    parser.add_argument("--skip-grade", action="store_true", help="leave out the `grader grade` runs")
    args = parser.parse_args()
    sys.path.insert(0, str(ROOT))
    import nbformat

    from grader.build.notebook import build_notebook
    from grader.core.course import load_course
    from grader.notebooks.extract import MAX_JSON_CONTAINERS, MAX_JSON_VALUES

    course = load_course(ROOT, check_files=False)
    plain = nbformat.writes(build_notebook(course, course.assignment("ps4b")))
    n = args.mb * 2**20 // 4
    counted = plain.count("[") + plain.count("{")  # ps4b's own, in the notebooks at the bounds
    room = MAX_JSON_VALUES - counted - plain.count(",") - 2
    containers = min(MAX_JSON_CONTAINERS - counted, room // 2) - 1
    cases = {
        "ps4b": plain,
        f"ps4b + {args.mb} MiB of 1e1, ({n:,} values)": notebook_with(plain, "[" + ",".join(["1e1"] * n) + "]"),
    }
    at_bounds = {
        f"{room:,} floats": "[" + ",".join(["1e1"] * room) + "]",
        f"{room:,} strings": "[" + ",".join(['"ab"'] * room) + "]",
        f"{room:,} distinct keys": "{" + ",".join(f'"{i:x}":0' for i in range(room)) + "}",
        f"{containers:,} objects": "[" + ",".join(['{"":0}'] * containers) + "]",
    }
    print(
        f"bounds: {MAX_JSON_CONTAINERS:,} arrays and objects, {MAX_JSON_VALUES:,} values; peak RSS of a fresh process"
    )
    with tempfile.TemporaryDirectory() as tmp:
        paths = {}
        for name, text in [*cases.items(), *((k, notebook_with(plain, v)) for k, v in at_bounds.items())]:
            paths[name] = Path(tmp) / f"{len(paths)}" / "ps4b.ipynb"
            paths[name].parent.mkdir()
            paths[name].write_text(text)
        del cases, plain, text  # the notebooks are on disk: this process stays small while it measures
        names, at_bounds = [name for name in paths][:2], list(at_bounds)
        print("\nreading a notebook (extraction):")
        for name in names:
            size = paths[name].stat().st_size / 2**20
            now, before = measure(READ, str(paths[name]), "bounded"), measure(READ, str(paths[name]), "unbounded")
            verdict = "refused: " + now["problem"][:60] + "..." if now["problem"] else "read"
            print(
                f"  {name} ({size:.1f} MiB): {now['peak']:.0f} MiB, {now['seconds']:.2f} s ({verdict}); "
                f"without the value count {before['peak']:.0f} MiB, {before['seconds']:.2f} s "
                f"({before['peak'] / now['peak']:.1f}x)"
            )
        print("\nthe worst notebooks still read (ps4b with one of these in its metadata):")
        for name in at_bounds:
            got = measure(READ, str(paths[name]), "bounded")
            assert got["problem"] is None, got["problem"]
            print(
                f"  {name} ({paths[name].stat().st_size / 2**20:.1f} MiB): {got['peak']:.0f} MiB, {got['seconds']:.2f} s"
            )
        if args.skip_grade:
            return
        print("\ngrader grade NOTEBOOK --only gae_advantages (the grader and its workers):")
        for name in names:
            started = time.perf_counter()
            got = measure(
                CHILDREN, sys.executable, "-m", "grader", "grade", str(paths[name]), "--only", "gae_advantages"
            )
            print(f"  {name}: {got['peak']:.0f} MiB, {time.perf_counter() - started:.2f} s wall (exit {got['rc']})")


if __name__ == "__main__":
    main()
