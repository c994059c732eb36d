"""Benchmark: one submission's CPU-spinning children against another submission graded beside it.

The review's finding (a_cpu_starve): a submission that forks 30 CPU-bound children (under the process
limit of 32, each under its own ``RLIMIT_CPU``) slowed a submission graded at the same time by another
grading process from 1.5 s to 2.1 s. A per-submission cpu cgroup with one process's weight
(grader/sandbox/cgroups.py) gives the 30 of them together the CPU share of one process.

Measured from outside, in the same run, alternately: the wall time of ``grader grade`` of a reference
submission (ps4b's three functions), alone; while another process (this script, ``--hog``) holds a
submission's 30 spinning children in a sandbox whose cgroups have no cpu controller (as before this
change); and while it holds them with the cpu controller. Also the CPU the spinners took meanwhile
(cores, from /proc). Medians of ``--repeat`` rounds; the grades must be the same in every round.

Each spinner calls ``setsid`` first (``--no-setsid``: the review's hog, which does not). Where the
kernel's autogroup is on (``kernel.sched_autogroup_enabled``) and the grader is in the root cpu cgroup,
the scheduler weighs a session, not a process: the review's 30 spinners, in the worker's one session,
already weighed as one there; a session each makes them 30 again. Inside a cpu cgroup no autogroup
applies. Before this change a round starves the whole machine for about 20 s: keep ``--repeat`` low.

Usage: python benchmarks/bench_cpu_share.py [--repeat N] [--children N]
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
FUNCTIONS = ("gae_advantages", "ppo_clipped_terms", "ppo_diagnostics")
HOG = """
import os

def _spin():
    if {setsid}:
        os.setsid()  # a session, so an autogroup, of its own: the scheduler's unit where no cgroup is
    while True:
        pass

for _ in range({children}):
    try:
        if os.fork() == 0:
            _spin()
    except OSError:
        break
"""


def _cpu_seconds(pids: list[int]) -> float:
    """User and system time of ``pids`` (seconds; the ones gone count nothing)."""
    total = 0
    for pid in pids:
        try:
            fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        total += int(fields[11]) + int(fields[12])  # utime, stime
    return total / os.sysconf("SC_CLK_TCK")


def hog(submission: Path, share: bool) -> None:
    """Hold the hog's spinning children in a sandbox until stdin closes; print the cores they took."""
    sys.path.insert(0, str(ROOT))
    from grader.sandbox import SandboxLauncher
    from grader.sandbox.zygote import children
    from grader.worker.client import WorkerProcess

    with SandboxLauncher(sandbox="require") as launcher:
        if launcher.hierarchy is None:
            sys.exit(f"no usable cgroups here: {launcher.no_cgroups}")
        if not share:  # the cgroups as they were before the cpu controller: memory and pids only
            launcher.hierarchy = dataclasses.replace(launcher.hierarchy, cpu=None, no_cpu="off for the benchmark")
        worker = WorkerProcess(submission, launcher)
        worker.start()
        reply = worker.request({"op": "import", "module": "hog"}, timeout=60)
        assert reply.get("ok"), reply
        found, todo = [], [launcher._zygote.process.pid]
        while todo:
            pid = todo.pop()
            found.append(pid)
            todo.extend(children(pid))
        began, cpu = time.monotonic(), _cpu_seconds(found)
        print(json.dumps({"ready": launcher.accounting, "processes": len(found)}), flush=True)
        sys.stdin.read()
        cores = (_cpu_seconds(found) - cpu) / (time.monotonic() - began)
        print(json.dumps({"cores": cores}), flush=True)
        worker.kill()


def grade(victim: Path) -> tuple[float, dict]:
    """``grader grade`` of ``victim`` in a process of its own: (wall seconds, scores)."""
    only = [arg for name in FUNCTIONS for arg in ("--only", name)]
    command = [sys.executable, "-m", "grader", "grade", "--json", "--course", str(ROOT), *only, str(victim)]
    began = time.perf_counter()
    proc = subprocess.run(command, capture_output=True, text=True, timeout=600, cwd=ROOT)
    wall = time.perf_counter() - began
    if proc.returncode != 0:
        sys.exit(f"grader grade failed:\n{proc.stderr[-3000:]}")
    result = json.loads(proc.stdout.strip().splitlines()[-1])
    return wall, {name: value["score"] for name, value in result["functions"].items()}


def beside_hog(victim: Path, hog_dir: Path, share: bool) -> tuple[float, dict, float]:
    """The victim graded while the hog spins: (wall seconds, scores, cores the hog took)."""
    flag = "on" if share else "off"
    process = subprocess.Popen(
        [sys.executable, __file__, "--hog", flag, str(hog_dir)],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        ready = json.loads(process.stdout.readline() or "{}")
        if "ready" not in ready:
            sys.exit(f"the hog did not start ({flag})")
        time.sleep(1.0)  # the spinners running
        wall, scores = grade(victim)
        process.stdin.close()
        cores = json.loads(process.stdout.readline() or '{"cores": NaN}')["cores"]
        process.wait(timeout=60)
    finally:
        if process.poll() is None:
            process.kill()
    return wall, scores, cores


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--repeat", type=int, default=3, help="rounds, each measuring the three cases (default 3)")
    parser.add_argument("--children", type=int, default=30, help="the hog's spinning children (default 30)")
    parser.add_argument(
        "--no-setsid", action="store_true", help="the review's hog: its children stay in the worker's session"
    )
    parser.add_argument("--hog", choices=("on", "off"), help=argparse.SUPPRESS)
    parser.add_argument("hog_dir", nargs="?", type=Path, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.hog:
        hog(args.hog_dir, args.hog == "on")
        return
    with tempfile.TemporaryDirectory() as tmp:
        victim, hog_dir = Path(tmp) / "victim", Path(tmp) / "hog"
        victim.mkdir()
        hog_dir.mkdir()
        for module in ("gae", "ppo_objective"):
            shutil.copy(ROOT / "solutions" / f"{module}.py", victim)
        (hog_dir / "hog.py").write_text(HOG.format(children=args.children, setsid=not args.no_setsid))
        grade(victim)  # warm: the course's cache, the page cache
        walls = {"alone": [], "off": [], "on": []}
        cores = {"off": [], "on": []}
        grades = set()
        for round_ in range(args.repeat):
            order = ["alone", "off", "on"]
            order = order[round_ % 3 :] + order[: round_ % 3]  # each case first as often as the others
            for case in order:
                if case == "alone":
                    wall, scores = grade(victim)
                else:
                    wall, scores, used = beside_hog(victim, hog_dir, case == "on")
                    cores[case].append(used)
                walls[case].append(wall)
                grades.add(json.dumps(scores, sort_keys=True))
                print(f"  round {round_ + 1} {case:5}: {wall:.2f} s", file=sys.stderr, flush=True)
    alone = statistics.median(walls["alone"])
    beside = f"beside {args.children} spinners{'' if args.no_setsid else ' (a session each)'}"
    print(f"victim: `grader grade` of ps4b's three functions (reference), medians of {args.repeat} rounds")
    print(f"  {'alone':80} {alone:6.2f} s")
    for case, label in (("off", "no cpu controller (before)"), ("on", "its own cpu cgroup, one process's weight")):
        wall = statistics.median(walls[case])
        print(
            f"  {beside + ', ' + label:80} {wall:6.2f} s  x{wall / alone:.2f} of alone"
            f"  (the spinners took {statistics.median(cores[case]):.2f} cores)"
        )
    print(f"  grades the same in every case: {len(grades) == 1}")
    print(f"  load average after: {os.getloadavg()[0]:.1f} (2 cores, shared)")


if __name__ == "__main__":
    main()
