"""Benchmark: what grading a lab costs, the new way against the old way (prints figures).

The new way (the hidden tests of ``cartpole_ppo_lab`` and ``sequence_rloo_lab``): the
course's training loop runs in the trusted process and calls the student's functions
in a worker across the boundary; a CartPole run stops once its greedy evaluation has
held 475 for ``GRADED_RUN["stop_after_solved_evaluations"]`` evaluations in a row.
The old way, measured in the same run: the worker trained the whole smoke budget
(CartPole: 61,440 steps per seed in float64, no entropy bonus) and sent back weights.

For each lab and the reference solutions, it prints the CPU seconds of the trusted
process and of the worker, per graded seed the environment steps (or iterations) and
the grader's evaluation, and the boundary calls: how many per function, the seconds
the trusted side waited for them and the worker's CPU. ``--mutants`` also grades each
lab mutant of ``tests/data/mutants/<lab>/`` and the known mistakes the CartPole lab
does not catch reliably, seed by seed, with what the cross-check found.

Goal: at most 5 s of CPU (trusted process and worker together) per lab and submission.

Runs on one core: BLAS threads are limited to one before numpy is imported. The
worker runs without the sandbox, as a direct child, so that its CPU time can be read.

Usage: python benchmarks/bench_labs.py [--lab cartpole_ppo_lab|sequence_rloo_lab] [--mutants]
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
from grader.course import load_course  # noqa: E402
from grader.grade import labreplay  # noqa: E402
from grader.grade.submission import Implementation, StudentError, Submission  # noqa: E402
from grader.testing import Misconception  # noqa: E402

LABS = ("cartpole_ppo_lab", "sequence_rloo_lab")
GOAL_CPU = 1.0  # both labs together, per submission
# Known CartPole mistakes that are not lab mutants (the lab does not fail them reliably).
CARTPOLE_MISTAKES = {
    "clipping_with_max": ("ppo_objective", "ppo_clipped_terms", "np.minimum(unclipped, clipped)",
                          "np.maximum(unclipped, clipped)"),
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
        impl = Implementation(submission)
        tolerance = test.CLOSE if lab == "cartpole_ppo_lab" else test.TOLERANCE
        replays = [labreplay.replay(impl.charged_to(lab), r, tolerance) for r in records]
        if replay and all(r.agrees for r in replays):
            if lab == "cartpole_ppo_lab":
                means, steps = records[0].outcome
                seeds = [{"seed": seed, "steps": n, "evaluation": m} for seed, m, n in zip(params["seeds"], means, steps)]
                passed = np.median(means) >= params["min_median_return"]
            else:
                seeds = [{"seed": seed, "steps": sequence_steps(test, params), "evaluation": r.outcome["success_rate"]}
                         for seed, r in zip(params["seeds"], records)]
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
                returns = trained.evaluate_policy(run["weights"], test.EVALUATION_EPISODES,
                                                  test.EVALUATION_SEED + 1000 * seed, vector_env=cartpole.VectorCartPole)
                history = run["history"]
                reached = [s for s, m in zip(history["environment_steps"], history["evaluation_mean"]) if m >= 475]
                seeds.append({"seed": seed, "steps": run["environment_steps"], "first_475": int(reached[0]) if reached else None,
                              "stopped_early": run["stopped_early"], "evaluation": float(np.mean(returns))})
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
                seeds.append({"seed": seed, "steps": sequence_steps(test, params),
                              "evaluation": evaluation["success_rate"]})
            passed = failure is None and min(rates) >= params["min_success_rate"]
    finally:
        submission.close()
    return {"trusted_cpu": time.process_time() - trusted_started, "worker_cpu": children_cpu() - worker_started,
            "seeds": seeds, "stats": student.stats if student else {}, "findings": student.findings() if student else [],
            "failure": failure, "passed": bool(passed) and failure is None, "replays": replays}


def sequence_steps(test, params) -> int:
    return test.trusted("llm_sequence").sequence_profile_config(params["profile"])["iterations"]


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
    print(f"  {name}: {verdict}; CPU trusted {graded['trusted_cpu']:.2f} s + worker {graded['worker_cpu']:.2f} s "
          f"= {graded['trusted_cpu'] + graded['worker_cpu']:.2f} s")
    for s in graded["seeds"]:
        extra = (f", first >= 475 at {s['first_475']}, stopped early: {s['stopped_early']}"
                 if "first_475" in s else "")
        print(f"    seed {s['seed']:3d}: {s['steps']:>6} steps/iterations{extra}; grader's evaluation {s['evaluation']:.3g}")
    for r in graded["replays"]:
        verdict = "every answer agreed" if r.agrees else f"first differed in {r.where()[:140]}"
        print(f"    replay: {r.calls:5d} calls in {r.crossings:3d} crossings; {verdict}")
    for function, stats in graded["stats"].items():
        print(f"    {function:>28s}: {stats.calls:5d} calls, {stats.checked:4d} cross-checked, "
              f"{stats.seconds:.2f} s waited ({1000 * stats.seconds / max(stats.calls, 1):.2f} ms a call)")
    if graded["failure"]:
        print(f"    stopped: {graded['failure'][:160]}")
    for finding in graded["findings"]:
        print(f"    cross-check: {finding[:160]}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--lab", choices=LABS, action="append", help="only this lab (repeatable; default: both)")
    parser.add_argument("--mutants", action="store_true", help="also grade the lab mutants and known mistakes")
    parser.add_argument("--old-way", action="store_true",
                        help="also time the oldest way (the worker trains the whole smoke budget)")
    args = parser.parse_args()
    course = load_course(ROOT)
    total_new = total_trained = 0.0
    failing = expected_failing = mistakes = mistakes_same = 0
    for lab in args.lab or LABS:
        print(f"{lab}:")
        _, recording = reference_record(course, lab)
        print(f"  record of the reference training (once per grading process): {recording:.2f} s CPU")
        graded = grade_lab(course, lab, course.solutions_dir)
        print_grading("reference, replayed", graded)
        new = graded["trusted_cpu"] + graded["worker_cpu"]
        trained = grade_lab(course, lab, course.solutions_dir, replay=False)
        print_grading("reference, trained (the way before the replay)", trained)
        before = trained["trusted_cpu"] + trained["worker_cpu"]
        print(f"  replayed / trained: {new / before:.3f}; goal <= {GOAL_CPU:g} s per submission for both labs")
        total_new, total_trained = total_new + new, total_trained + before
        if args.old_way:
            old, _ = old_way(course, lab)
            print(f"  oldest way (the worker trains the whole smoke budget): {old:.2f} s CPU of training alone")
        if args.mutants:
            import tempfile

            with tempfile.TemporaryDirectory() as scratch:
                for name, folder in mutant_folders(course, lab, Path(scratch)).items():
                    result = grade_lab(course, lab, folder)
                    print_grading(name, result)
                    if name in CARTPOLE_MISTAKES:  # not caught reliably: compared with training, below
                        trained = grade_lab(course, lab, folder, replay=False)
                        same = trained["passed"] == result["passed"]
                        print(f"    trained without the replay: {'pass' if trained['passed'] else 'FAIL'}"
                              f"{'' if same else ' (A DIFFERENT VERDICT)'}")
                        mistakes += 1
                        mistakes_same += same
                    else:
                        expected_failing += 1
                        failing += not result["passed"]
    verdict = "met" if total_new <= GOAL_CPU else "NOT met"
    print(f"both labs, reference: {total_new:.2f} s CPU replayed (goal <= {GOAL_CPU:g} s: {verdict}), "
          f"{total_trained:.2f} s trained, ratio {total_new / total_trained:.3f} (same run; CPU time)")
    if args.mutants:
        print(f"lab mutants that fail: {failing} of {expected_failing}; known mistakes (not lab mutants) "
              f"with the verdict training gives them: {mistakes_same} of {mistakes}")


if __name__ == "__main__":
    main()
