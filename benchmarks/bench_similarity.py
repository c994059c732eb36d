"""grader similarity at scale: wall time and peak memory for a synthetic class of K = 200 and K = 2,000.

Each class is written to disk as grade-class takes it (one folder of .py modules per student, the whole
module's 19 functions), from the blind corpora's independent authors plus planted disguised copies (one
for every 20 students; tests/similarity_corpus.py), and analysed as `grader similarity` does, in a fresh
process per K (its peak resident memory is the process's). Also prints the labelled rates at each K.

    python benchmarks/bench_similarity.py                 # K = 200 and 2,000
    python benchmarks/bench_similarity.py --k 200 --k 500
"""

from __future__ import annotations

import argparse
import itertools
import json
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(HERE))


def one(k: int) -> dict:
    from grader.core.course import load_course
    from grader.similarity.run import similarity
    from tests.similarity_corpus import synthetic_class, write_class

    course = load_course(HERE)
    functions = [e.function for e in course.exercises if e.kind == "function"]
    cls = synthetic_class(functions, k, max(1, k // 20), seed=k)
    with tempfile.TemporaryDirectory(prefix="bench-similarity-") as scratch:
        folder = write_class(cls, course, Path(scratch) / "class")
        started = time.perf_counter()
        cpu = time.process_time()
        report = similarity(folder, course_dir=HERE, out=Path(scratch) / "out", top=0)
        wall, cpu = time.perf_counter() - started, time.process_time() - cpu
    flagged = {(p["evidence"]["assignment"], *sorted((p["a"], p["b"]))) for p in report["pairs"] if p["flagged"]}
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024  # before the labelling below
    counts: dict[str, list[int]] = {}
    for assignment in course.assignments:
        fs = [f for f in functions if course.exercise(f).assignment == assignment.id]
        if not fs:
            continue
        for a, b in itertools.combinations(sorted(cls.students), 2):
            sa, sb = cls.students[a], cls.students[b]
            copy = sb if sb.copied_from == a else sa if sa.copied_from == b else None
            if copy is not None and set(copy.copied) & set(fs):
                label = "planted"
            elif any(sa.authors[f] == sb.authors[f] for f in fs):
                label = "same author"
            else:
                label = "independent"
            entry = counts.setdefault(label, [0, 0])
            entry[0] += (assignment.id, a, b) in flagged
            entry[1] += 1
    return {"k": k, "students": len(cls.students), "wall": wall, "cpu": cpu, "peak_mib": peak, "counts": counts}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--k", type=int, action="append", help="students (repeatable; default 200 and 2000)")
    parser.add_argument("--one", type=int, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.one:
        print(json.dumps(one(args.one)))
        return
    print(
        f"{'K':>6} {'students':>8} {'wall s':>8} {'CPU s':>8} {'peak MiB':>9}  flagged: planted / independent / same author"
    )
    for k in args.k or [200, 2000]:
        out = subprocess.run([sys.executable, __file__, "--one", str(k)], capture_output=True, text=True, check=True)
        r = json.loads(out.stdout.strip().splitlines()[-1])
        rates = "  ".join(f"{label} {f}/{n} ({f / n:.2%})" for label, (f, n) in sorted(r["counts"].items()))
        print(f"{r['k']:>6} {r['students']:>8} {r['wall']:>8.1f} {r['cpu']:>8.1f} {r['peak_mib']:>9.0f}  {rates}")


if __name__ == "__main__":
    main()
