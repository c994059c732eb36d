"""Benchmark: what a hostile reply costs the grader's process, with the reply bounds and without.

Code in a worker can write its own reply to the response pipe. The bomb here is
the reply ``{"ok": true, "value": [[], [], ...]}`` of a given size:

- (a) without bounds: what the grader did before the bounds (``json.loads`` of the
  whole reply, then ``runtime.decode`` of its value), on the same bytes;
- (b) with bounds: a real worker writes the bomb from inside the student's function
  and the grader's ``WorkerProcess`` reads it (size checked from the header,
  structure scanned before anything is decoded).

Each measurement runs in a fresh process and reports the growth of its peak RSS
(``ru_maxrss``) and the time; the ratio (a)/(b) is printed for each size.

Usage: python benchmarks/bench_replies.py [--sizes 0.9,8,32]
"""

from __future__ import annotations

import argparse
import json
import resource
import subprocess
import sys
import tempfile
import textwrap
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

BOMB_SUBMISSION = """
import os, struct, sys

def bomb(megabytes):
    data = b'{"ok":true,"value":[' + b"[]," * int(megabytes * 2**20 / 3) + b"[]]}"
    frame = sys._getframe(1)
    while "response_fd" not in frame.f_locals:
        frame = frame.f_back
    os.write(frame.f_locals["response_fd"], struct.pack(">Q", len(data)) + data)
    os._exit(0)
"""


def bomb_bytes(megabytes: float) -> bytes:
    return b'{"ok":true,"value":[' + b"[]," * int(megabytes * 2**20 / 3) + b"[]]}"


def peak_rss() -> int:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024


def measure_unbounded(megabytes: float) -> dict:
    from grader.core.submission import Record
    from grader.worker import runtime

    data = bomb_bytes(megabytes)
    before, started = peak_rss(), time.perf_counter()
    value = runtime.decode(json.loads(data)["value"], Record)
    return {"rss": peak_rss() - before, "seconds": time.perf_counter() - started, "outcome": f"{len(value)} lists"}


def measure_bounded(megabytes: float) -> dict:
    from grader.worker import runtime
    from grader.worker.client import WorkerProcess
    from grader.worker.replies import ReplyRejected

    with tempfile.TemporaryDirectory() as tmp:
        (Path(tmp) / "bomb.py").write_text(BOMB_SUBMISSION)
        worker = WorkerProcess(Path(tmp))
        worker.start()
        request = {
            "op": "call",
            "module": "bomb",
            "function": "bomb",
            "args": runtime.encode([megabytes]),
            "kwargs": runtime.encode({}),
        }
        try:
            worker.request({"op": "import", "module": "bomb"}, timeout=30)
            before, started = peak_rss(), time.perf_counter()
            try:
                worker.request(request, timeout=60)
                outcome = "accepted"
            except ReplyRejected as exc:
                outcome = str(exc)
            elapsed = time.perf_counter() - started
            return {"rss": peak_rss() - before, "seconds": elapsed, "outcome": outcome}
        finally:
            worker.kill()


def in_fresh_process(kind: str, megabytes: float) -> dict:
    code = textwrap.dedent(f"""
        import json, sys
        sys.path.insert(0, {str(ROOT)!r}); sys.path.insert(0, {str(ROOT / "benchmarks")!r})
        import bench_replies
        print(json.dumps(bench_replies.measure_{kind}({megabytes!r})))
    """)
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT)
    if proc.returncode != 0:
        sys.exit(f"measurement failed:\n{proc.stderr}")
    return json.loads(proc.stdout.strip().splitlines()[-1])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--sizes", default="0.9,8,32", help="bomb sizes in MiB, comma-separated (default: 0.9,8,32)")
    args = parser.parse_args()
    print(
        "reply bomb [[],[],...] | (a) without bounds: peak RSS growth, time | (b) with bounds: peak RSS growth, "
        "time, what the grader said | RSS ratio (a)/(b)"
    )
    for megabytes in (float(s) for s in args.sizes.split(",")):
        unbounded = in_fresh_process("unbounded", megabytes)
        bounded = in_fresh_process("bounded", megabytes)
        ratio = unbounded["rss"] / max(bounded["rss"], 2**20)
        print(
            f"{megabytes:5.1f} MiB | (a) {unbounded['rss'] / 2**20:7.1f} MiB {unbounded['seconds']:6.2f} s "
            f"| (b) {bounded['rss'] / 2**20:5.1f} MiB {bounded['seconds']:6.3f} s, {bounded['outcome']!r} "
            f"| {ratio:.0f}x (b counted as at least 1 MiB)"
        )


if __name__ == "__main__":
    main()
