"""Benchmark: what the sandbox's seccomp filter costs, per submission and per system call.

Two sandbox launchers, identical but for the filter (``SandboxLauncher(seccomp=False)``),
measured in the same run, alternately, so that the machine's noise hits both alike:

- per submission: fork a worker from the zygote, import the course's reference
  modules, ping it, kill it and wipe its scratch space (median of --repeat);
- per system call, inside a worker: a loop of cheap calls (``getppid``, ``stat``)
  and of calls whose argument the filter reads (``ioctl``: ``isatty``; ``fork`` + ``wait``);
- once per grading process: starting the sandbox and its zygote.

Usage: python benchmarks/bench_seccomp.py [--repeat N]
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

LOOPS = """
import os, time

def loop(kind, n):
    started = time.perf_counter()
    if kind == "getppid":
        for _ in range(n):
            os.getppid()
    elif kind == "stat":
        for _ in range(n):
            os.stat("/tmp")
    elif kind == "ioctl":
        fd = os.open("/tmp", os.O_RDONLY)
        for _ in range(n):
            os.isatty(fd)  # ioctl(TCGETS), as every open() of Python asks
    elif kind == "fork":
        for _ in range(n):
            pid = os.fork()
            if pid == 0:
                os._exit(0)
            os.waitpid(pid, 0)
    return (time.perf_counter() - started) / n
"""


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--repeat", type=int, default=40, help="submissions per launcher (default 40)")
    args = parser.parse_args()
    sys.path.insert(0, str(ROOT))
    from grader.core.course import load_course
    from grader.sandbox import SandboxLauncher
    from grader.sandbox.limits import Limits
    from grader.worker import runtime
    from grader.worker.client import WorkerProcess

    course = load_course(ROOT)
    limits = Limits.from_course(course)
    with tempfile.TemporaryDirectory() as tmp:
        submission = Path(tmp) / "submission"
        submission.mkdir()
        for module in course.modules:
            shutil.copy(course.solutions_dir / f"{module}.py", submission)
        (submission / "loops.py").write_text(LOOPS)
        launchers, start = {}, {}
        for filtered in (True, False):
            began = time.perf_counter()
            launchers[filtered] = SandboxLauncher(limits, sandbox="require", seccomp=filtered).start()
            start[filtered] = time.perf_counter() - began
        if not launchers[True].filtered:
            sys.exit(f"no seccomp filter here: {launchers[True].describe()}")

        def one_submission(launcher) -> float:
            began = time.perf_counter()
            worker = WorkerProcess(submission, launcher)
            worker.start()
            for module in course.modules:
                worker.request({"op": "import", "module": module}, timeout=60)
            worker.request({"op": "ping"}, timeout=30)
            worker.kill()
            return time.perf_counter() - began

        def per_call(launcher, kind: str, n: int) -> float:
            worker = WorkerProcess(submission, launcher)
            worker.start()
            try:
                reply = worker.request(
                    {
                        "op": "call",
                        "module": "loops",
                        "function": "loop",
                        "args": runtime.encode([kind, n]),
                        "kwargs": runtime.encode({}),
                    },
                    timeout=120,
                )
                return runtime.decode(reply["value"])
            finally:
                worker.kill()

        times = {True: [], False: []}
        for _ in range(args.repeat):
            for filtered in (True, False):
                times[filtered].append(one_submission(launchers[filtered]))
        calls = {}
        for kind, n in (("getppid", 200_000), ("stat", 100_000), ("ioctl", 200_000), ("fork", 200)):
            samples = {True: [], False: []}
            for _ in range(5):
                for filtered in (True, False):
                    samples[filtered].append(per_call(launchers[filtered], kind, n))
            calls[kind] = {f: statistics.median(s) for f, s in samples.items()}
        for launcher in launchers.values():
            launcher.close()

    on, off = statistics.median(times[True]), statistics.median(times[False])
    print(f"sandbox: {launchers[True].describe()}")
    print(
        f"per submission (fork a worker, import {len(course.modules)} modules, ping, kill, wipe), "
        f"median of {args.repeat}:"
    )
    print(f"  with the filter {on * 1000:6.2f} ms | without {off * 1000:6.2f} ms | ratio {on / off:.3f}")
    for kind, t in calls.items():
        print(
            f"per {kind:8s} call in a worker: with {t[True] * 1e6:8.3f} us | without {t[False] * 1e6:8.3f} us "
            f"| ratio {t[True] / t[False]:.3f}"
        )
    print(
        f"starting the sandbox and its zygote (once per grading process): with {start[True]:.2f} s | "
        f"without {start[False]:.2f} s"
    )


if __name__ == "__main__":
    main()
