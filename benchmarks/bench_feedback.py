"""Benchmark: how true the first message is, what trivial answers earn, what diagnosis costs.

Grades, in one session each (``python -m grader.engine.batch``, or ``grader.grade.batch`` in a tree
from before the engine):

- every known wrong implementation of a function exercise (``autograder-tests/mistakes/``
  and ``tests/data/mutants/``), on its own function: the share whose FIRST message (the
  one a student reads first) contains its ``expect:`` phrase, and the share named by a
  known-mistake match (the result's ``diagnosis`` names the mistake itself);
- every trivial body of ``tests/data/trivial/`` for every function exercise: the points each
  earns (the goal is 0);
- with ``--cross-validate``, every wrong implementation again, graded by a copy of the course
  whose catalogue of mistakes lacks it (two sessions, each catalogue holding the other half):
  how often the first message still names the mistake, and how often the diagnosis names
  another one instead (a mistake the catalogue does not know must not be named with confidence);
- the reference, and one wrong submission (a wrong implementation of every function at
  once), several times: wall and CPU time of grading (goal for diagnosis: at most +20 %).

``--root`` measures another checkout of the course (e.g. an export of main) with the
trivial bodies and wrong implementations of this one's layout, so before and after are
measured by the same script.

Usage: python benchmarks/bench_feedback.py [--root DIR] [--repeat N] [--skip-corpus] [--skip-timing]
                                           [--cross-validate [--out table.json]]
"""

from __future__ import annotations

import argparse
import json
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections import defaultdict
from pathlib import Path

HERE = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(HERE))

from grader.core.course import load_course  # noqa: E402
from tests.helpers import build_submission, load_mutants, trivial_plan  # noqa: E402


def grade_batch(root: Path, plan: dict) -> tuple[dict, float, float]:
    """Grade ``plan`` in one session under ``root``: (results by id, wall seconds, CPU seconds)."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    started = time.perf_counter()
    engine = (root / "grader" / "engine" / "batch.py").is_file()
    batch = "grader.engine.batch" if engine else "grader.grade.batch"
    proc = subprocess.run(
        [sys.executable, "-m", batch],
        input=json.dumps({"submissions": plan}),
        cwd=root,
        capture_output=True,
        text=True,
        timeout=3600,
    )
    wall = time.perf_counter() - started
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if proc.returncode != 0:
        sys.exit(f"grading failed under {root}:\n{proc.stderr[-3000:]}")
    results = {}
    for line in proc.stdout.splitlines():
        line = json.loads(line)
        results[line["id"]] = line["record"]["result"] if engine else line["result"]
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return results, wall, cpu


def first_message(function_result: dict) -> str:
    """What a student reads first: the diagnosis, else the first failing test's message."""
    if function_result.get("diagnosis"):
        return function_result["diagnosis"]
    if function_result.get("error"):
        return function_result["error"]
    return next((t["message"] for t in function_result["tests"] if not t["passed"] and t["message"]), "")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--root", type=Path, default=HERE, help="course checkout to measure (default: this one)")
    parser.add_argument("--repeat", type=int, default=3, help="timing runs (median reported)")
    parser.add_argument("--skip-corpus", action="store_true", help="time grading only")
    parser.add_argument("--skip-timing", action="store_true", help="grade the corpus only")
    parser.add_argument(
        "--cross-validate",
        action="store_true",
        help="also grade each wrong implementation without its own known mistake",
    )
    parser.add_argument("--verbose", action="store_true", help="list the first messages that miss")
    parser.add_argument(
        "--out", type=Path, help="with --cross-validate: write each mistake's first message and cause ids as JSON here"
    )
    args = parser.parse_args()
    root = args.root.resolve()
    course = load_course(root, check_tests=False)
    functions = [e.function for e in course.exercises if e.kind == "function"]
    mutants = [m for m in load_mutants(roots=(root,)) if m.function in functions]
    with tempfile.TemporaryDirectory(prefix="bench-feedback-") as tmp:
        tmp = Path(tmp)
        if not args.skip_corpus:
            corpus_report(root, course, functions, mutants, tmp)
        if args.cross_validate:
            cross_validation_report(root, mutants, tmp, args.verbose, args.out)
        if not args.skip_timing:
            timing_report(root, functions, mutants, tmp, args.repeat)


def corpus_report(root, course, functions, mutants, tmp) -> None:
    plan, expect = {}, {}
    for m in mutants:
        path = build_submission(tmp / "mutants" / m.function / m.name, [m.path], course_root=root)
        plan[str(m)] = {"path": str(path), "only": [m.function]}
        expect[str(m)] = m
    trivial = {f"trivial:{sid}": entry for sid, entry in trivial_plan(course, tmp / "trivial", functions).items()}
    plan.update(trivial)
    results, wall, cpu = grade_batch(root, plan)

    named = matched = 0
    misses = []
    for sid, m in expect.items():
        f = results[sid]["functions"][m.function]
        first = first_message(f)
        if m.expect.lower() in first.lower():
            named += 1
        else:
            misses.append(f"  {sid}: expects '{m.expect}'; first message: {first[:140]}")
        if f.get("diagnosis") and f.get("mistake") == m.name:
            matched += 1
    n = len(expect)
    print(f"wrong implementations: {n} (graded in one session: {wall:.1f} s wall, {cpu:.1f} s CPU)")
    print(f"  first message names its own mistake: {named}/{n} = {named / n:.0%}")
    print(f"  named by a known-mistake match:      {matched}/{n} = {matched / n:.0%}")
    if misses:
        print("  first messages that miss:")
        print("\n".join(misses))

    table: dict[str, dict[str, float]] = defaultdict(dict)
    kinds: list[str] = []
    for sid in trivial:
        function, kind = sid.split(":", 1)[1].split("/")
        table[function][kind] = results[sid]["functions"][function]["score"]
        kinds.append(kind)
    kinds = list(dict.fromkeys(kinds))
    points = {e.function: e.points for e in course.exercises}
    print("\ntrivial bodies: points earned (of the exercise's points)")
    print(f"  {'function':32s}{'max':>5s}" + "".join(f"{k:>11s}" for k in kinds))
    totals = defaultdict(float)
    for function in functions:
        row = table[function]
        for k in kinds:
            totals[k] += row.get(k, 0.0)
        print(f"  {function:32s}{points[function]:5g}" + "".join(f"{row.get(k, 0.0):11.2f}" for k in kinds))
    print(f"  {'total':32s}{sum(points[f] for f in functions):5g}" + "".join(f"{totals[k]:11.2f}" for k in kinds))


def cross_validation_report(root, mutants, tmp, verbose=False, out=None) -> None:
    known = [m for m in mutants if m.path.is_relative_to(root / "autograder-tests" / "mistakes")]
    halves = [known[0::2], known[1::2]]
    results, expect = {}, {}
    for i, (graded, kept) in enumerate([(halves[0], halves[1]), (halves[1], halves[0])]):
        copy = tmp / f"course-{i}"
        shutil.copytree(root, copy, ignore=shutil.ignore_patterns(".venv", ".git", "__pycache__", "*.egg-info"))
        for m in graded:  # the catalogue of this copy keeps only the other half
            (copy / m.path.relative_to(root)).unlink()
        plan = {}
        for m in graded:
            path = build_submission(tmp / f"cv{i}" / m.function / m.name, [m.path], course_root=root)
            plan[str(m)] = {"path": str(path), "only": [m.function]}
            expect[str(m)] = m
        results.update(grade_batch(copy, plan)[0])
    named = other = wrong_cause = 0
    others = []
    phrase = {(m.function, m.name): m.expect.lower() for m in known}
    for sid, m in expect.items():
        f = results[sid]["functions"][m.function]
        named += m.expect.lower() in first_message(f).lower()
        if verbose and m.expect.lower() not in first_message(f).lower():
            others.append(f"  {sid}: expects '{m.expect}'; first message: {first_message(f)[:140]}")
        if f.get("mistake"):
            other += 1
            others.append(f"  {sid} named as {f['mistake']}")
        # The causes the first message names: its cause ids, and every catalogue mistake whose phrase it
        # contains (the same reading for a grader from before cause ids, whose probes named causes in text).
        # A cause whose phrase is this mistake's own is the same mistake written differently.
        # A failed input check's message says what was checked ("must raise ValueError"): a fact, no cause.
        first = first_message(f).lower()
        checks = {t["message"].lower() for t in f["tests"] if not t["passed"] and t.get("kind") == "contract"}
        causes = set(f.get("causes") or []) | ({f["mistake"]} if f.get("mistake") else set())
        if first not in checks:
            causes |= {name for (function, name), text in phrase.items() if function == m.function and text in first}
        foreign = sorted(c for c in causes if phrase.get((m.function, c)) != m.expect.lower())
        if foreign:
            wrong_cause += 1
            others.append(f"  {sid} told {', '.join(foreign)}: {first_message(f)[:140]}")
    if out is not None:  # the table of every first message, e.g. to count what the observations say
        rows = [
            {
                "entry": sid,
                "correct": False,
                "expect": m.expect,
                "first_message": first_message(results[sid]["functions"][m.function]),
                "causes": results[sid]["functions"][m.function].get("causes", []),
            }
            for sid, m in expect.items()
        ]
        out.write_text(json.dumps(rows, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    n = len(expect)
    print(
        f"\ncross-validation: {n} known mistakes, each graded without itself (nor the probes whose text only it"
        f" evidences) in the catalogue"
    )
    print(f"  first message still names the mistake:   {named}/{n} = {named / n:.0%}")
    print(f"  another known mistake matched instead:    {other}/{n} = {other / n:.0%}")
    print(f"  first message names a cause it lacks:     {wrong_cause}/{n} = {wrong_cause / n:.0%}")
    print("\n".join(others))


# The wrong submission timed: one wrong implementation of every function, the same before and after.
WRONG = (
    "broadcast_sequence_advantages/divides_by_length",
    "discounted_score_weights/cumprod_discounts",
    "gae_advantages/bootstraps_terminal",
    "grad_log_softmax/batched_rows",
    "group_mean_advantages/divides_by_std",
    "group_zscore_advantages/eps_in_denominator",
    "leave_one_out_baselines/divides_by_g",
    "masked_token_ppo_objective/all_masked_nan",
    "masked_token_ppo_terms/fixed_clip",
    "optimal_constant_baseline/naive_softmax",
    "ppo_clipped_terms/always_clipped",
    "ppo_diagnostics/active_is_outside",
    "response_token_mask/boolean_mask",
    "reward_to_go/accumulates_in_place",
    "sequence_log_probability/mean_not_sum",
    "sequence_log_probability_ratio/inverted",
    "sequence_probability_ratio/average_of_token_ratios",
    "simulate_group_baseline_bias/ignores_seed",
    "stable_softmax/batched_rows",
)


def timing_report(root, functions, mutants, tmp, repeat) -> None:
    chosen = [m for m in mutants if str(m) in WRONG]
    wrong = build_submission(tmp / "wrong", [m.path for m in chosen], course_root=root)
    reference = load_course(root, check_tests=False).solutions_dir
    figures = {}
    for label, path in (("reference", reference), ("wrong", wrong)):
        plan = {"s": {"path": str(path), "only": functions}}
        runs = [grade_batch(root, plan)[1:] for _ in range(repeat)]
        figures[label] = (statistics.median(r[0] for r in runs), statistics.median(r[1] for r in runs))
    print(f"\ngrading time, {len(functions)} function exercises, median of {repeat} (one session each):")
    for label, (wall, cpu) in figures.items():
        print(f"  {label:10s} {wall:6.2f} s wall {cpu:6.2f} s CPU")
    print(f"  wrong = one wrong implementation of each function ({len(chosen)}): see WRONG")


if __name__ == "__main__":
    main()
