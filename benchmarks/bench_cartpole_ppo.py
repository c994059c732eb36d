"""Benchmark: how fast the course's numpy PPO solves CartPole-v1 (prints figures).

Full profile, several seeds: the environment steps and wall seconds until the
median deterministic evaluation over the seeds first reaches 475 (and from when
on it stays there), and each seed's final evaluation. Smoke profile: the total
time of the lab notebook's runs (the lab's seeds from course.yaml, the whole
budget). What *grading* costs (a graded run stops once solved) is measured by
``benchmarks/bench_labs.py``.

Goals: full profile reaches a median of 475 within 100k environment steps and 30 s
per seed on one core; the smoke profile ends at a median of at least 475, in well
under 60 s. Anchors: tuned rl-zoo PPO reaches 500 at 100k steps; CleanRL's default
PPO about 490 at 500k.

Runs on one core: BLAS threads are limited to one before numpy is imported.

Usage: python benchmarks/bench_cartpole_ppo.py [--seeds 11,37,71,101,131] [--skip-smoke]
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path

for _var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ[_var] = "1"

import numpy as np  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "solutions"))

import ppo_training as ppo  # noqa: E402


def seeds_argument(text: str) -> list[int]:
    return [int(s) for s in text.split(",") if s.strip()]


def first_step_staying_above(curve: dict, threshold: float) -> int | None:
    """First evaluated step from which the median never drops below ``threshold`` again."""
    steps, median = curve["environment_steps"], curve["median"]
    evaluated = np.isfinite(median)
    steps, median = steps[evaluated], median[evaluated]
    below = np.flatnonzero(median < threshold)
    start = 0 if below.size == 0 else below[-1] + 1
    return int(steps[start]) if start < len(steps) else None


def seconds_at_step(run: dict, step: int) -> float:
    history = run["history"]
    index = history["environment_steps"].index(step)
    return float(history["wall_seconds"][index])


def run_profile(profile: str, seeds: list[int], threshold: float) -> dict:
    runs, cpu = [], []
    for seed in seeds:
        cpu_started = time.process_time()
        run = ppo.train_ppo(ppo.profile_config(profile, seed=seed))
        cpu.append(time.process_time() - cpu_started)
        runs.append(run)
        crossed = [
            s for s, m in zip(run["history"]["environment_steps"], run["history"]["evaluation_mean"]) if m >= threshold
        ]
        print(
            f"  seed {seed:4d}: final {run['final_evaluation_mean']:6.1f} ± {run['final_evaluation_std']:5.1f}"
            f"   first >= {threshold:g} at {crossed[0] if crossed else '-':>7} steps"
            f"   {run['wall_seconds']:5.1f} s wall, {cpu[-1]:5.1f} s CPU",
            flush=True,
        )
    return {"runs": runs, "cpu": cpu, "curve": ppo.aggregate_training_runs(runs)}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument(
        "--seeds",
        type=seeds_argument,
        default=[11, 37, 71, 101, 131],
        help="comma-separated seeds of the full-profile runs (default: 11,37,71,101,131)",
    )
    parser.add_argument(
        "--smoke-seeds",
        type=seeds_argument,
        default=[11, 37],
        help="comma-separated seeds of the smoke run (default: the lab's 11,37)",
    )
    parser.add_argument(
        "--threshold",
        type=float,
        default=ppo.SOLVED_RETURN,
        help="evaluation return that counts as solved (default: 475)",
    )
    parser.add_argument("--skip-smoke", action="store_true", help="only the full profile")
    parser.add_argument("--skip-full", action="store_true", help="only the smoke profile")
    args = parser.parse_args()
    threshold = args.threshold

    if not args.skip_full:
        config = ppo.profile_config("full")
        print(
            f"full profile: {config.total_timesteps} steps per seed, evaluation every "
            f"{config.evaluation_every * config.batch_size} steps ({config.evaluation_episodes} greedy episodes)"
        )
        full = run_profile("full", args.seeds, threshold)
        curve = full["curve"]
        reached = ppo.steps_to_threshold(curve, threshold)
        stays = first_step_staying_above(curve, threshold)
        final = float(np.median([r["final_evaluation_mean"] for r in full["runs"]]))
        print(
            f"median over {len(args.seeds)} seeds first >= {threshold:g} at: "
            f"{reached if reached is not None else 'never'} environment steps"
            + (
                f", after {np.median([seconds_at_step(r, reached) for r in full['runs']]):.1f} s per seed (median)"
                if reached is not None
                else ""
            )
        )
        print(
            f"median stays >= {threshold:g} from: {stays if stays is not None else 'never'} environment steps"
            + (
                f", after {np.median([seconds_at_step(r, stays) for r in full['runs']]):.1f} s per seed (median)"
                if stays is not None
                else ""
            )
        )
        print(
            f"final median evaluation: {final:.1f}; per seed {np.median(full['cpu']):.1f} s CPU (median), "
            f"{max(r['wall_seconds'] for r in full['runs']):.1f} s wall (max)"
        )
        goal = reached is not None and reached <= 100_000
        print(f"goal (median >= {threshold:g} within 100k steps): {'met' if goal else 'NOT met'}")

    if not args.skip_smoke:
        print(f"smoke profile: {ppo.profile_config('smoke').total_timesteps} steps per seed, seeds {args.smoke_seeds}")
        started = time.perf_counter()
        smoke = run_profile("smoke", args.smoke_seeds, threshold)
        total = time.perf_counter() - started
        final = float(np.median([r["final_evaluation_mean"] for r in smoke["runs"]]))
        print(
            f"smoke total: {total:.1f} s wall, {sum(smoke['cpu']):.1f} s CPU; final median evaluation {final:.1f}"
            f" (goal >= {threshold:g}: {'met' if final >= threshold else 'NOT met'})"
        )


if __name__ == "__main__":
    main()
