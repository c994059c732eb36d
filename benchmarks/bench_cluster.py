"""Benchmark: grading a class on this machine (`-j 2`) and on a Dask cluster of two local workers.

Builds K synthetic full-module submissions (as benchmarks/bench_class.py: correct,
wrong by known misconceptions, untouched stubs, one endless loop; the labs left out),
then, in the same run:

(a) ``grader grade-class -j 2 --require-sandbox``: two trusted processes here;
(b) ``grader grade-class --scheduler ...``: a real ``dask scheduler`` and two ``dask worker
    --nthreads 1`` processes on 127.0.0.1, each in a scratch directory of its own (cold: the
    course travels and each worker sets its session up; then warm: the sessions are reused).

Prints submissions per second for both, the per-submission overhead of the cluster path
(its Dask round trip with a submission's bytes out and a record back, measured with no-op
tasks, and the scheduler's and client's CPU per task), and a scale model of a large course:
the measured per-submission costs (functions here, a lab training measured once) times the
counts, at 2, 16, 64 and 256 worker cores.

Usage: python benchmarks/bench_cluster.py [--k 48] [--students 2000] [--skip-lab]
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "benchmarks"))

from bench_class import make_class  # noqa: E402
from bench_class import run_grader as grade_class

from grader.core.course import load_course  # noqa: E402
from tests.engine.dask_cluster import Cluster  # noqa: E402


def cpu_seconds(pid: int) -> float:
    with open(f"/proc/{pid}/stat") as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def records(out: Path) -> list[dict]:
    return [json.loads(p.read_text()) for p in sorted((out / "results").glob("*.json"))]


def noop(parcel, record):
    """A task as heavy on the wire as a submission and its record, that grades nothing."""
    return record


def round_trip(cluster: Cluster, parcel_bytes: dict, record: dict, n: int) -> dict:
    """Per-task costs of the cluster path, with two tasks in flight per worker (as the grader)."""
    from distributed import wait

    client = cluster.client
    workers = list(client.nthreads())
    sched0, client0, started = cpu_seconds(cluster.processes["scheduler"].pid), time.process_time(), time.perf_counter()
    futures, sent = [], 0
    pending = set()
    while sent < n or pending:
        for w in workers:
            while sent < n and sum(1 for f in pending if f.worker == w) < 2:
                future = client.submit(noop, parcel_bytes, record, workers=[w], pure=False)
                future.worker = w
                pending.add(future)
                sent += 1
        with client.as_current():
            done, _ = wait(list(pending), return_when="FIRST_COMPLETED")
        for f in done:
            f.result()
            pending.discard(f)
            futures.append(f)
    wall = time.perf_counter() - started
    latency = []
    for _ in range(20):
        t = time.perf_counter()
        client.submit(noop, parcel_bytes, record, workers=[workers[0]], pure=False).result()
        latency.append(time.perf_counter() - t)
    return {
        "per_task": wall / n,
        "latency": statistics.median(latency),
        "scheduler_cpu": (cpu_seconds(cluster.processes["scheduler"].pid) - sched0) / n,
        "client_cpu": (time.process_time() - client0) / n,
    }


def record_write_cost(record: dict, n: int = 50) -> float:
    from grader.engine.record import GradeRecord
    from grader.engine.store import ResultStore

    rec = GradeRecord.from_json(record)
    with tempfile.TemporaryDirectory() as tmp:
        store = ResultStore(Path(tmp))
        started = time.perf_counter()
        for i in range(n):
            rec.student = f"s{i}"
            store.save(rec)
        return (time.perf_counter() - started) / n


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--k", type=int, default=48, help="submissions in the class (default 48)")
    parser.add_argument("--seed", type=int, default=4)
    parser.add_argument("--students", type=int, default=2000, help="class size of the scale model (default 2000)")
    parser.add_argument(
        "--skip-lab",
        action="store_true",
        help="use docs/labs.md's 0.85 s per submission for the labs "
        "(replayed) and 6.3 s per grading process for the record instead of "
        "measuring one lab grading",
    )
    args = parser.parse_args()

    course = load_course(ROOT)
    functions = [e.function for e in course.exercises if e.kind != "lab"]
    labs = [e.function for e in course.exercises if e.kind == "lab"]
    modules = list(dict.fromkeys(course.exercise(f).module for f in functions))
    work = Path(tempfile.mkdtemp(prefix="bench-cluster-"))
    try:
        submissions = work / "submissions"
        students, _ = make_class(course, submissions, args.k, args.seed, modules)
        print(
            f"class: {args.k} full-module submissions ({len(functions)} exercises, labs left out); "
            f"load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} CPUs"
        )

        local = grade_class(course, submissions, work / "local", functions, "-j", "2")
        cluster = Cluster(work / "dask")
        try:
            cluster.add_worker("worker-a")
            cluster.add_worker("worker-b")
            cold = grade_class(
                course, submissions, work / "dask-out", functions, "--scheduler", cluster.address, "--insecure"
            )  # the benchmark's own tcp://127.0.0.1 cluster
            busy_cold = sum(r["elapsed"] for r in records(work / "dask-out"))
            warm = grade_class(
                course, submissions, work / "dask-out", functions, "--scheduler", cluster.address, "--insecure"
            )  # the benchmark's own tcp://127.0.0.1 cluster
            busy_warm = sum(r["elapsed"] for r in records(work / "dask-out"))
            mine = {r["student"]: r["result"] for r in records(work / "local")}
            theirs = {r["student"]: r["result"] for r in records(work / "dask-out")}
            same = sum(1 for s in mine if json.dumps(mine[s]) == json.dumps(theirs.get(s)))
            sample = records(work / "dask-out")[0]
            parcel = {p.name: p.read_bytes() for p in (submissions / sample["student"]).glob("*.py")}
            trip = round_trip(cluster, parcel, sample, n=400)
        finally:
            cluster.close()
        write = record_write_cost(sample)
        elapsed = [r["elapsed"] for r in records(work / "local")]
        busy_local = sum(elapsed)
        kinds = {}
        for r in records(work / "local"):
            kinds.setdefault(students[r["student"]], []).append(r["elapsed"])

        print()
        # Busy: the share of the two sessions' time spent grading (the rest is start-up and hand-over).
        print(
            f"(a) grade-class -j 2, here:                {local:6.1f} s  {args.k / local:5.2f} submissions/s  "
            f"grading {busy_local:5.1f} s, busy {busy_local / (2 * local):.0%}"
        )
        print(
            f"(b) grade-class --scheduler, 2 workers, cold: {cold:6.1f} s  {args.k / cold:5.2f} submissions/s  "
            f"grading {busy_cold:5.1f} s, busy {busy_cold / (2 * cold):.0%} (the course travels, each worker "
            f"sets up its session)"
        )
        print(
            f"(b) grade-class --scheduler, 2 workers, warm: {warm:6.1f} s  {args.k / warm:5.2f} submissions/s  "
            f"grading {busy_warm:5.1f} s, busy {busy_warm / (2 * warm):.0%} (sessions reused)"
        )
        print(
            f"ratio (b warm)/(a) in submissions per second: {local / warm:.2f}; records equal in their grade "
            f"fields: {same}/{len(mine)}"
        )
        print(
            f"cluster path per submission (a submission's {sum(map(len, parcel.values())) / 1024:.0f} KB out, "
            f"a {len(json.dumps(sample)) / 1024:.0f} KB record back, 2 in flight per worker): "
            f"{trip['per_task'] * 1000:.1f} ms per task over 2 workers, round trip {trip['latency'] * 1000:.1f} ms; "
            f"scheduler CPU {trip['scheduler_cpu'] * 1000:.2f} ms/task, client CPU {trip['client_cpu'] * 1000:.2f} "
            f"ms/task, record written (fsync) {write * 1000:.1f} ms   (goal: overhead <= 50 ms)"
        )

        functions_cost = statistics.mean(elapsed)
        print(
            f"grading one submission (functions; mean of the class): {functions_cost:.2f} s "
            + "("
            + ", ".join(f"{k} {statistics.median(v):.2f} s" for k, v in kinds.items())
            + ")"
        )
        if args.skip_lab:
            lab_cost, record = 0.85, 6.3  # both labs replayed on the reference, docs/labs.md (bench_labs.py)
            print("labs per submission: 0.85 s (not measured here: docs/labs.md's figure, --skip-lab)")
        else:
            reference = work / "reference"
            # Two copies in one grading process: the first also records the reference trainings
            # (once per process, grader/core/labreplay.py), the second is what every other costs.
            shutil.copytree(course.solutions_dir, reference / "alice")
            shutil.copytree(course.solutions_dir, reference / "bob")
            grade_class(course, reference, work / "lab", labs, "-j", "1")
            first, lab_cost = sorted((r["elapsed"] for r in records(work / "lab")), reverse=True)
            record = first - lab_cost
            print(
                f"labs per submission (both labs, reference solutions, measured): {lab_cost:.2f} s "
                f"({first:.1f} s for the grading process's first, which records the reference trainings)"
            )

        per_task = functions_cost + lab_cost
        overhead = trip["latency"]
        serial = max(trip["scheduler_cpu"], trip["client_cpu"] + write)
        setup = cold - warm
        n = args.students
        print()
        print(
            f"scale model: {n} submissions x ({functions_cost:.2f} s functions + {lab_cost:.1f} s labs "
            f"+ {overhead * 1000:.0f} ms cluster round trip) on W worker cores; serial floor "
            f"{serial * 1000:.1f} ms/submission (scheduler or client, the larger); session set-up "
            f"{max(setup, 0):.1f} s once"
        )
        print(
            f"(and the record of the reference's lab trainings, {record:.1f} s once per grading process: "
            "one per worker core)"
        )
        print("| worker cores | grading work | wall time | submissions/s | limited by |")
        print("|---|---|---|---|---|")
        work_seconds = n * (per_task + overhead)
        for cores in (2, 16, 64, 256):
            parallel = work_seconds / cores
            floor = n * serial
            # the set-up, one record and the last submission's own labs
            wall = max(parallel, floor) + max(setup, 0) + record + lab_cost
            work_seconds_cores = work_seconds + cores * record
            limit = "worker cores" if parallel >= floor else "scheduler/client"
            print(
                f"| {cores} | {work_seconds_cores / 3600:.2f} core-h | {wall / 60:.1f} min | {n / wall:.1f} | {limit} |"
            )
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
