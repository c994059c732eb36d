"""Benchmark: what grading the labs costs, replayed against trained (prints figures).

The hidden tests of ``cartpole_ppo_lab`` and ``sequence_rloo_lab`` first replay the calls
of the reference's training (recorded once per grading process) to the student's
functions in a few large crossings (``grader/core/labreplay.py``); when every answer
agrees, the lab earns the reference's verdict without training. Otherwise the course's
training loop runs in the trusted process and calls the student's functions in a worker
across the boundary, one call per crossing (a CartPole run stops once its greedy
evaluation has held 475 for ``GRADED_RUN["stop_after_solved_evaluations"]`` evaluations
in a row, while its checked calls agree). Both ways are measured in the same run, on the
reference solutions, with the one-time cost of the record printed apart.

It prints the CPU seconds of the trusted process and of the worker (and of the worker's
start-up, which a submission pays once for all its tests), per seed the steps (or
iterations) and the grader's evaluation, the replay's calls and crossings, the calls of a
training (per function, with the seconds waited), and the CPU per call of one call per
crossing against the replay's chunks. ``--mutants`` also grades each lab mutant of
``tests/data/mutants/<lab>/`` (all must fail) and the known mistakes the CartPole lab does
not catch reliably (each must get the verdict training gives it), with what was found.

Goal: at most 1 s of CPU (trusted process and worker together) per submission for both
labs, with the reference solutions. Measure on a quiet machine, or read the ratio: CPU
time grows with the load, and both ways are measured in the same run.

Runs on one core: BLAS threads are limited to one before numpy is imported. The
worker runs without the sandbox, as a direct child, so that its CPU time can be read.

Usage: python benchmarks/bench_labs.py [--lab cartpole_ppo_lab|sequence_rloo_lab] [--mutants] [--old-way]
"""

from __future__ import annotations

import argparse
import importlib.util
import os
import resource
import sys
import time
import types
from pathlib import Path

for _var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ[_var] = "1"

import numpy as np  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from grader import testing  # noqa: E402
from grader.core import labreplay  # noqa: E402
from grader.core.course import load_course  # noqa: E402
from grader.core.submission import Implementation, StudentError, Submission  # noqa: E402
from grader.testing import Misconception  # noqa: E402

LABS = ("cartpole_ppo_lab", "sequence_rloo_lab")
GOAL_CPU = 1.0  # both labs together, per submission
CHUNK = 62  # ppo_clipped_terms calls per map crossing in the replay (1 MiB reply limit, half of it used)
# Known CartPole mistakes that are not lab mutants (the lab does not fail them reliably).
CARTPOLE_MISTAKES = {
    "clipping_with_max": (
        "ppo_objective",
        "ppo_clipped_terms",
        "np.minimum(unclipped, clipped)",
        "np.maximum(unclipped, clipped)",
    ),
    "one_done_flag": ("gae", "gae_advantages", "np.where(term, 0.0, nv)", "np.where(cuts, 0.0, nv)"),
    "no_clipping": ("ppo_objective", "ppo_clipped_terms", "np.minimum(unclipped, clipped)", "unclipped"),
}


def children_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def hidden_test(course, lab: str) -> types.ModuleType:
    """The lab's hidden test module, loaded as the grader loads it (its helpers are what we time)."""
    path = course.hidden_test_file(lab)
    spec = importlib.util.spec_from_file_location(f"_bench_{lab}", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def reference_record(course, lab: str):
    """The record of the reference training for ``lab`` (made once per process); its CPU seconds."""
    testing.CONTEXT.course, testing.CONTEXT.function = course, lab
    test = hidden_test(course, lab)
    params = testing.exercise_params(lab)
    started = time.process_time()
    if lab == "cartpole_ppo_lab":
        trained, cartpole = test.trusted_modules()
        records = [test.reference_record(course, trained, cartpole, params["seeds"], params["profile"])]
    else:
        sequence = test.trusted("llm_sequence")
        records = [test.reference_record(sequence, seed, params["profile"]) for seed in params["seeds"]]
    return records, time.process_time() - started


def grade_lab(course, lab: str, folder: Path, replay: bool = True) -> dict:
    """Grade ``lab`` on ``folder`` as its hidden test does, through a worker; time both sides.

    ``replay``: first replay the reference training's calls (the hidden test's way); without
    it, or when an answer differs, train with the submission's functions.
    """
    testing.CONTEXT.course, testing.CONTEXT.function = course, lab
    test = hidden_test(course, lab)
    params = testing.exercise_params(lab)
    records, _ = reference_record(course, lab) if replay else ([], 0.0)
    trusted_started, worker_started = time.process_time(), children_cpu()
    submission = Submission(folder, course)
    seeds, failure, student, replays = [], None, None, []
    try:
        # A submission has one worker for all its tests: its start-up is not the lab's.
        submission._ensure_worker()
        startup = time.process_time() - trusted_started + process_cpu(submission.worker.process.pid)
        impl = Implementation(submission)
        tolerance = test.CLOSE if lab == "cartpole_ppo_lab" else test.TOLERANCE
        replays = [labreplay.replay_training(impl.charged_to(lab), r, tolerance) for r in records]
        if replay and all(r.agrees for r in replays):
            if lab == "cartpole_ppo_lab":
                means, steps = records[0].outcome
                seeds = [
                    {"seed": seed, "steps": n, "evaluation": m} for seed, m, n in zip(params["seeds"], means, steps)
                ]
                passed = np.median(means) >= params["min_median_return"]
            else:
                seeds = [
                    {"seed": seed, "steps": sequence_steps(test, params), "evaluation": r.outcome["success_rate"]}
                    for seed, r in zip(params["seeds"], records)
                ]
                passed = min(s["evaluation"] for s in seeds) >= params["min_success_rate"]
        elif lab == "cartpole_ppo_lab":
            trained, cartpole = test.trusted_modules()
            student = test.cross_check(impl, course, trained)
            for seed in params["seeds"]:
                try:
                    run = test.trained_weights(trained, cartpole, seed, params["profile"], student)
                except Misconception as error:
                    failure = str(error)
                    break
                returns = trained.evaluate_policy(
                    run["weights"],
                    test.EVALUATION_EPISODES,
                    test.EVALUATION_SEED + 1000 * seed,
                    vector_env=cartpole.VectorCartPole,
                )
                history = run["history"]
                reached = [s for s, m in zip(history["environment_steps"], history["evaluation_mean"]) if m >= 475]
                seeds.append(
                    {
                        "seed": seed,
                        "steps": run["environment_steps"],
                        "first_475": int(reached[0]) if reached else None,
                        "stopped_early": run["stopped_early"],
                        "evaluation": float(np.mean(returns)),
                    }
                )
            passed = failure is None and np.median([s["evaluation"] for s in seeds]) >= params["min_median_return"]
        else:
            sequence = test.trusted("llm_sequence")
            student = test.cross_check(impl)
            rates = []
            for seed in params["seeds"]:
                try:
                    weights = sequence.sequence_rloo_lab(seed, params["profile"], functions=student)
                except (ValueError, StudentError) as error:
                    failure = str(error)
                    break
                evaluation = test.evaluated(sequence, weights, params["profile"], seed)
                rates.append(evaluation["success_rate"])
                seeds.append(
                    {"seed": seed, "steps": sequence_steps(test, params), "evaluation": evaluation["success_rate"]}
                )
            passed = failure is None and min(rates) >= params["min_success_rate"]
    finally:
        submission.close()
    return {
        "trusted_cpu": time.process_time() - trusted_started,
        "worker_cpu": children_cpu() - worker_started,
        "seeds": seeds,
        "stats": student.stats if student else {},
        "findings": student.findings() if student else [],
        "failure": failure,
        "passed": bool(passed) and failure is None,
        "replays": replays,
        "startup": startup,
    }


def process_cpu(pid: int) -> float:
    """CPU seconds (user and system) of a running process, from /proc."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def crossing_cost(course, calls: int = 400) -> None:
    """CPU per call of ppo_clipped_terms on a lab minibatch (256 rows): one call per crossing, then
    ``CHUNK`` calls per ``map`` crossing (the replay's way), both sides, on one worker."""
    rng = np.random.default_rng(0)
    ratios, advantages = np.exp(rng.normal(scale=0.2, size=(calls, 256))), rng.normal(size=(calls, 256))
    submission = Submission(course.solutions_dir, course)
    try:
        function = Implementation(submission).ppo_clipped_terms
        function(ratios[0], advantages[0], 0.2)  # start the worker and import the module
        pid = submission.worker.process.pid
        figures = {}
        for way in ("one call per crossing", "map crossings"):
            trusted, worker = time.process_time(), process_cpu(pid)
            if way == "map crossings":
                for start in range(0, calls, CHUNK):  # the replay's chunks: half the reply limit
                    function.map(
                        [ratios[start : start + CHUNK], advantages[start : start + CHUNK], 0.2],
                        [0, 1],
                        len(ratios[start : start + CHUNK]),
                        {},
                    )
            else:
                for i in range(calls):
                    function(ratios[i], advantages[i], 0.2)
            figures[way] = (time.process_time() - trusted, process_cpu(pid) - worker)
    finally:
        submission.close()
    print(
        f"crossing cost, ppo_clipped_terms on 256 rows, {calls} calls, {CHUNK} per map crossing "
        "(CPU per call, trusted + worker):"
    )
    for way, (trusted, worker) in figures.items():
        print(f"  {way:>22s}: {1e3 * trusted / calls:.3f} + {1e3 * worker / calls:.3f} ms")
    single, batched = (sum(figures[w]) for w in figures)
    print(f"  map / single: {batched / single:.3f}")


def sequence_steps(test, params) -> int:
    return test.trusted("llm_sequence").sequence_profile_config(params["profile"]).iterations


def old_way(course, lab: str) -> tuple[float, list]:
    """CPU of the old graded run, in this process: the whole smoke budget with the reference functions."""
    testing.CONTEXT.function = lab
    params = testing.exercise_params(lab)
    sys.path.insert(0, str(course.solutions_dir))
    started, results = time.process_time(), []
    if lab == "cartpole_ppo_lab":
        import ppo_training

        for seed in params["seeds"]:
            # As the worker trained before: float64, no entropy bonus, evaluated every 10 updates.
            config = ppo_training.profile_config(params["profile"], seed=seed, dtype="float64", entropy_coef=0.0)
            results.append(ppo_training.train_ppo(config)["final_evaluation_mean"])
    else:
        import llm_sequence

        for seed in params["seeds"]:
            results.append(llm_sequence.sequence_rloo_lab(seed, params["profile"]) is not None)
    return time.process_time() - started, results


def mutant_folders(course, lab: str, scratch: Path) -> dict[str, Path]:
    """Submission folders: the reference with one lab mutant (or known mistake) swapped in."""
    sys.path.insert(0, str(ROOT))
    from tests.helpers import build_submission, load_mutants

    folders = {m.name: build_submission(scratch / m.name, [m.path]) for m in load_mutants(lab)}
    if lab == "cartpole_ppo_lab":
        for name, (module, function, right, wrong) in CARTPOLE_MISTAKES.items():
            folder = build_submission(scratch / name)
            text = (folder / f"{module}.py").read_text(encoding="utf-8")
            assert right in text, f"{name}: cannot find {right!r} in solutions/{module}.py"
            (folder / f"{module}.py").write_text(text.replace(right, wrong, 1), encoding="utf-8")
            folders[name] = folder
    return folders


def print_grading(name: str, graded: dict) -> None:
    verdict = "pass" if graded["passed"] else "FAIL"
    print(
        f"  {name}: {verdict}; CPU trusted {graded['trusted_cpu']:.2f} s + worker {graded['worker_cpu']:.2f} s "
        f"= {graded['trusted_cpu'] + graded['worker_cpu']:.2f} s, of which the worker's start-up "
        f"{graded['startup']:.2f} s"
    )
    for s in graded["seeds"]:
        extra = f", first >= 475 at {s['first_475']}, stopped early: {s['stopped_early']}" if "first_475" in s else ""
        print(
            f"    seed {s['seed']:3d}: {s['steps']:>6} steps/iterations{extra}; grader's evaluation {s['evaluation']:.3g}"
        )
    for r in graded["replays"]:
        verdict = "every answer agreed" if r.agrees else f"first differed in {r.where()[:140]}"
        print(f"    replay: {r.calls:5d} calls in {r.crossings:3d} crossings; {verdict}")
    for function, stats in graded["stats"].items():
        print(
            f"    {function:>28s}: {stats.calls:5d} calls, {stats.checked:4d} cross-checked, "
            f"{stats.seconds:.2f} s waited ({1000 * stats.seconds / max(stats.calls, 1):.2f} ms a call)"
        )
    if graded["failure"]:
        print(f"    stopped: {graded['failure'][:160]}")
    for finding in graded["findings"]:
        print(f"    cross-check: {finding[:160]}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--lab", choices=LABS, action="append", help="only this lab (repeatable; default: both)")
    parser.add_argument("--mutants", action="store_true", help="also grade the lab mutants and known mistakes")
    parser.add_argument(
        "--old-way", action="store_true", help="also time the oldest way (the worker trains the whole smoke budget)"
    )
    args = parser.parse_args()
    course = load_course(ROOT)
    crossing_cost(course)
    total_new = total_trained = 0.0
    failing = expected_failing = mistakes = mistakes_same = 0
    startups = []
    for lab in args.lab or LABS:
        print(f"{lab}:")
        _, recording = reference_record(course, lab)
        print(f"  record of the reference training (once per grading process): {recording:.2f} s CPU")
        graded = grade_lab(course, lab, course.solutions_dir)
        print_grading("reference, replayed", graded)
        new = graded["trusted_cpu"] + graded["worker_cpu"] - graded["startup"]
        trained = grade_lab(course, lab, course.solutions_dir, replay=False)
        print_grading("reference, trained (the way before the replay)", trained)
        before = trained["trusted_cpu"] + trained["worker_cpu"] - trained["startup"]
        print(
            f"  without the worker's start-up: replayed {new:.2f} s, trained {before:.2f} s, ratio {new / before:.3f}"
        )
        total_new, total_trained = total_new + new, total_trained + before
        startups.append(graded["startup"])
        if args.old_way:
            old, _ = old_way(course, lab)
            print(f"  oldest way (the worker trains the whole smoke budget): {old:.2f} s CPU of training alone")
        if args.mutants:
            import tempfile

            with tempfile.TemporaryDirectory() as scratch:
                for name, folder in mutant_folders(course, lab, Path(scratch)).items():
                    result = grade_lab(course, lab, folder)
                    print_grading(name, result)
                    if lab == "cartpole_ppo_lab" and name in CARTPOLE_MISTAKES:  # not caught reliably: vs training
                        trained = grade_lab(course, lab, folder, replay=False)
                        same = trained["passed"] == result["passed"]
                        print(
                            f"    trained without the replay: {'pass' if trained['passed'] else 'FAIL'}"
                            f"{'' if same else ' (A DIFFERENT VERDICT)'}"
                        )
                        mistakes += 1
                        mistakes_same += same
                    else:
                        expected_failing += 1
                        failing += not result["passed"]
    verdict = "met" if total_new <= GOAL_CPU else "NOT met"
    print(
        f"both labs, reference, per submission (CPU, trusted + worker, without the start-up of the worker a "
        f"submission has anyway: {min(startups):.2f}-{max(startups):.2f} s here, a fork from the zygote in the "
        f"sandbox): {total_new:.2f} s replayed (goal <= {GOAL_CPU:g} s: {verdict}), {total_trained:.2f} s trained, "
        f"ratio {total_new / total_trained:.3f} (same run)"
    )
    if args.mutants:
        print(
            f"lab mutants that fail: {failing} of {expected_failing}; known mistakes (not lab mutants) "
            f"with the verdict training gives them: {mistakes_same} of {mistakes}"
        )


if __name__ == "__main__":
    main()
