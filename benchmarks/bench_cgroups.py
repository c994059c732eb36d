"""Benchmark: what a cgroup per submission costs (grader/sandbox/cgroups.py).

Two sandbox launchers, identical but for the per-submission cgroup (the other made with
``cgroup_mode="off"``: the fallback), measured in the same run, alternately, so that
the machine's noise hits both alike: fork a worker from the zygote, import the
course's reference modules, ping it, kill it and wipe its scratch space (median of
--repeat). The cgroup launcher also makes a cgroup, moves the zygote into it and
removes the last one, for every submission.

Usage: python benchmarks/bench_cgroups.py [--repeat N]
"""

from __future__ import annotations

import argparse
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--repeat", type=int, default=30, help="submissions per launcher (default 30)")
    args = parser.parse_args()
    sys.path.insert(0, str(ROOT))
    from grader.core.course import load_course
    from grader.sandbox import SandboxLauncher
    from grader.sandbox.limits import Limits
    from grader.worker.client import WorkerProcess

    course = load_course(ROOT)
    limits = Limits.from_course(course)
    with tempfile.TemporaryDirectory() as tmp:
        submission = Path(tmp) / "submission"
        submission.mkdir()
        for module in course.modules:
            shutil.copy(course.solutions_dir / f"{module}.py", submission)
        launchers = {}
        for grouped in (True, False):
            mode = "auto" if grouped else "off"
            launchers[grouped] = SandboxLauncher(limits, sandbox="require", cgroup_mode=mode).start()
        if launchers[True].hierarchy is None:
            sys.exit(f"no usable cgroups here: {launchers[True].no_cgroups}")

        def one_submission(launcher) -> float:
            began = time.perf_counter()
            worker = WorkerProcess(submission, launcher)
            worker.start()
            for module in course.modules:
                worker.request({"op": "import", "module": module}, timeout=60)
            worker.request({"op": "ping"}, timeout=30)
            worker.kill()
            return time.perf_counter() - began

        times = {True: [], False: []}
        for _ in range(args.repeat):
            for grouped in (True, False):
                times[grouped].append(one_submission(launchers[grouped]))
        for launcher in launchers.values():
            launcher.close()
    on, off = statistics.median(times[True]), statistics.median(times[False])
    print(f"with: {launchers[True].accounting}")
    print(f"without: {launchers[False].accounting}")
    print(
        f"per submission (fork a worker, import {len(course.modules)} modules, ping, kill, wipe), "
        f"median of {args.repeat}:"
    )
    print(f"  with a cgroup {on * 1000:6.2f} ms | without {off * 1000:6.2f} ms | ratio {on / off:.3f}")


if __name__ == "__main__":
    main()
