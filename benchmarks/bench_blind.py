"""Benchmark: what the grader tells a student about mistakes it was not designed around.

Grades every entry of the blind corpus (``tests/data/blind/<function>/<name>.py``, written
from the exercise docstrings only; see its README) in one session: each entry is a copy
of ``solutions/`` with that one function replaced, graded on that function only. For
each entry it records the score, the first message a student reads (the function's
``diagnosis``, else its error, else the message of the first failed test in the listed
order) and the known mistake the grader named, if any (``mistake``).

It prints:

- whether every ``correct_*`` entry kept full marks and every wrong entry lost points;
- how many wrong entries got a diagnosis naming a known mistake;
- with the corpus's ``labels.yaml`` (entry -> catalogue mistakes that describe the same
  mistake; ``--labels`` for another file): how many diagnoses name a mistake the entry does
  not have (the goal is 0);
- with a verdicts file (``--verdicts``, e.g. ``tests/data/blind/before.yaml``, judged by hand:
  right / generic / wrong): the counts of each verdict, and the entries whose first message
  changed since it was judged (to be judged again).

``--root`` grades with another checkout of the course (e.g. main, or a branch under review)
while the corpus stays this one's, so before and after are measured by the same script.

Usage: python benchmarks/bench_blind.py [--root DIR] [--corpus DIR] [--out table.json] [--csv table.csv]
                                        [--labels labels.yaml] [--verdicts verdicts.yaml] [--list]
                                        [--from-table table.json]
"""

from __future__ import annotations

import argparse
import csv
import json
import subprocess
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

import yaml

HERE = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(HERE))

from grader.core.course import load_course  # noqa: E402
from tests.helpers import build_submission  # noqa: E402

CORPUS = HERE / "tests" / "data" / "blind"


def statement(path: Path) -> str:
    """The entry's one-line docstring: its mistake in plain words, or ``correct: ...``."""
    text = path.read_text(encoding="utf-8")
    assert text.startswith('"""'), f"{path}: an entry starts with its one-line docstring"
    return text[3 : text.index('"""', 3)].strip()


def entries(corpus: Path, functions: list[str]) -> list[tuple[str, str, Path]]:
    """(function, name, path) of every entry of the corpus, for the course's function exercises."""
    found = sorted((p.parent.name, p.stem, p) for p in corpus.glob("*/*.py"))
    unknown = {f for f, _, _ in found} - set(functions)
    assert not unknown, f"corpus folders that are no function exercise: {sorted(unknown)}"
    return found


def grade_batch(root: Path, plan: dict) -> tuple[dict, float]:
    """Grade ``plan`` in one session of ``root``'s engine: (result by id, wall seconds)."""
    started = time.perf_counter()
    proc = subprocess.run(
        [sys.executable, "-m", "grader.engine.batch"],
        input=json.dumps({"submissions": plan}),
        cwd=root,
        capture_output=True,
        text=True,
        timeout=3600,
    )
    if proc.returncode != 0:
        sys.exit(f"grading failed under {root}:\n{proc.stderr[-3000:]}")
    results = {}
    for line in proc.stdout.splitlines():
        line = json.loads(line)
        results[line["id"]] = line["record"]["result"]
    missing = set(plan) - set(results)
    assert not missing, f"no result for {sorted(missing)}"
    return results, time.perf_counter() - started


def first_message(function_result: dict) -> str:
    """What a student reads first: the diagnosis, else the error, else the first failed test's message."""
    if function_result.get("diagnosis"):
        return function_result["diagnosis"]
    if function_result.get("error"):
        return function_result["error"]
    return next((t["message"] for t in function_result.get("tests", []) if not t["passed"] and t["message"]), "")


def table(root: Path, corpus: Path) -> tuple[list[dict], float]:
    """One row per corpus entry: entry, statement, score, max, first message, diagnosed, mistake."""
    course = load_course(root, check_tests=False)
    functions = [e.function for e in course.exercises if e.kind == "function"]
    found = entries(corpus, functions)
    with tempfile.TemporaryDirectory(prefix="bench-blind-") as tmp:
        plan = {}
        for function, name, path in found:
            dest = build_submission(Path(tmp) / function / name, [path], course_root=root)
            plan[f"{function}/{name}"] = {"path": str(dest), "only": [function]}
        results, wall = grade_batch(root, plan)
    rows = []
    for function, name, path in found:
        result = results[f"{function}/{name}"]["functions"][function]
        rows.append(
            {
                "entry": f"{function}/{name}",
                "correct": name.startswith("correct_"),
                "statement": statement(path),
                "score": result.get("score"),
                "max": result.get("max"),
                "first_message": first_message(result),
                "diagnosed": bool(result.get("diagnosis")),
                "mistake": result.get("mistake"),
                # The causes the first message names (catalogue ids; a grader from before they existed: the mistake).
                "causes": result.get("causes", [result["mistake"]] if result.get("mistake") else []),
            }
        )
    return rows, wall


def full_marks(row: dict) -> bool:
    return row["score"] is not None and row["max"] is not None and abs(row["score"] - row["max"]) < 1e-9


def report(rows: list[dict], wall: float, labels: dict | None, verdicts: dict | None, listing: bool) -> None:
    right = [r for r in rows if r["correct"]]
    wrong = [r for r in rows if not r["correct"]]
    print(
        f"blind corpus: {len(wrong)} wrong and {len(right)} correct entries of "
        f"{len({r['entry'].split('/')[0] for r in rows})} functions"
        + (f", graded in {wall:.1f} s" if wall else " (from a saved table)")
    )
    kept = [r for r in right if full_marks(r)]
    lost = [r for r in wrong if not full_marks(r)]
    print(f"  correct entries with full marks: {len(kept)}/{len(right)}")
    for r in right:
        if not full_marks(r):
            print(f"    LOST POINTS {r['entry']}: {r['score']}/{r['max']}: {r['first_message'][:160]}")
    print(f"  wrong entries that lost points:  {len(lost)}/{len(wrong)}")
    for r in wrong:
        if full_marks(r):
            print(f"    FULL MARKS {r['entry']}: {r['statement']}")
    named = [r for r in wrong if r["diagnosed"] and r["mistake"]]
    print(f"  wrong entries named as a known mistake: {len(named)}/{len(wrong)}")
    if labels is not None:
        unlabelled = [r["entry"] for r in wrong if r["entry"] not in labels]
        if unlabelled:
            print(f"  (no label for {len(unlabelled)} entries: {', '.join(unlabelled[:5])}...)")
        foreign = [r for r in named if r["mistake"] not in (labels.get(r["entry"]) or [])]
        print(f"  named mistakes the entry does not have (labels.yaml): {len(foreign)}/{len(named)}")
        for r in foreign:
            print(f"    {r['entry']} named as {r['mistake']}: {r['statement']}")
        missed = [r for r in wrong if labels.get(r["entry"]) and not r["mistake"]]
        print(
            f"  entries the catalogue knows (labels.yaml) but the grader did not name: {len(missed)}/"
            f"{sum(bool(labels.get(r['entry'])) for r in wrong)}"
        )
        for r in missed:
            print(f"    {r['entry']} (labels: {', '.join(labels[r['entry']])})")
        causes = [r for r in wrong if r.get("causes")]
        foreign = [r for r in causes if set(r["causes"]) - set(labels.get(r["entry"]) or [])]
        print(
            f"  first messages naming a cause (machine-readable): {len(causes)}/{len(wrong)}; naming a cause "
            f"outside the entry's labels: {len(foreign)}"
        )
        for r in foreign:
            print(f"    {r['entry']} told {', '.join(r['causes'])}: {r['statement']}")
    if verdicts is not None:
        counts = Counter(verdicts[r["entry"]]["verdict"] for r in wrong if r["entry"] in verdicts)
        print(
            "  judged first messages ("
            + ", ".join(f"{k}: {counts.get(k, 0)}" for k in ("right", "generic", "wrong"))
            + f" of {len(wrong)})"
        )
        changed = [
            r["entry"]
            for r in wrong
            if r["entry"] in verdicts and verdicts[r["entry"]].get("first_message") != r["first_message"]
        ]
        print(
            f"  first messages changed since judged: {len(changed)}" + (f" ({', '.join(changed)})" if changed else "")
        )
    if listing:
        for r in rows:
            tag = f"[{r['mistake']}] " if r["mistake"] else ""
            print(
                f"\n{r['entry']} {r['score']}/{r['max']}\n  is:   {r['statement']}\n  told: {tag}{r['first_message'][:300]}"
            )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--root", type=Path, default=HERE, help="course checkout that grades (default: this one)")
    parser.add_argument("--corpus", type=Path, default=CORPUS, help="the blind corpus (default: this checkout's)")
    parser.add_argument("--out", type=Path, help="write the table as JSON here")
    parser.add_argument("--csv", type=Path, help="write the table as CSV here")
    parser.add_argument(
        "--labels", type=Path, help="entry -> acceptable known mistakes (default: the corpus's labels.yaml, if any)"
    )
    parser.add_argument("--verdicts", type=Path, help="entry -> {verdict, first_message}, judged by hand")
    parser.add_argument("--list", action="store_true", help="print every entry's statement and first message")
    parser.add_argument("--from-table", type=Path, help="report on a table written by --out instead of grading")
    args = parser.parse_args()
    if args.from_table:
        rows, wall = json.loads(args.from_table.read_text(encoding="utf-8")), 0.0
    else:
        rows, wall = table(args.root.resolve(), args.corpus.resolve())
    if args.out:
        args.out.write_text(json.dumps(rows, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    if args.csv:
        with open(args.csv, "w", newline="", encoding="utf-8") as out:
            writer = csv.DictWriter(out, fieldnames=list(rows[0]))
            writer.writeheader()
            writer.writerows(rows)
    # The labels belong to the corpus measured: another corpus's labels would judge the wrong entries.
    labels_path = args.labels or args.corpus / "labels.yaml"
    labels = yaml.safe_load(labels_path.read_text(encoding="utf-8")) if labels_path.is_file() else None
    verdicts = yaml.safe_load(args.verdicts.read_text(encoding="utf-8")) if args.verdicts else None
    report(rows, wall, labels, verdicts, args.list)


if __name__ == "__main__":
    main()
