"""Grading sessions on the workers of a Dask cluster (``--scheduler tcp://HOST:8786``).

Each Dask worker hosts one :class:`~grader.engine.driver.HostedSession` (course loaded,
one sandbox zygote, one pytest session), set up once by :class:`DaskGradingPlugin` and reused
for every submission it receives. Workers share no file system with the client: the
course travels once, inside the plugin, as a compressed archive of the files that grade
(its fingerprint is checked on arrival, with the worker's own grader code, Python and
numpy; a worker that differs is refused and named with both fingerprints); each
submission travels as its files' bytes (:class:`~grader.engine.parcel.Parcel`); each
result comes back as a record, as plain data.

The client decides which worker grades what (two submissions in flight per worker
thread, so a worker never waits for the next one), and the :class:`~grader.engine.dispatch.Dispatcher`
writes each record as it arrives. A task is pinned to its worker: when the worker dies
(killed, out of memory), the client notices it gone, and the submission is retried once
on another worker, then recorded as a failure of the infrastructure, never as a grade.
Workers run with ``--nthreads 1``: one submission at a time, each in its own sandbox.
"""

from __future__ import annotations

import io
import tarfile
import threading
import time
import uuid
from pathlib import Path

from grader.core.course import Course, load_course
from grader.core.fingerprint import check_course, course_files
from grader.engine.backend import Feed, Outcome
from grader.engine.driver import HostedSession
from grader.engine.options import GradingOptions
from grader.engine.parcel import Parcel
from grader.engine.record import totals
from grader.errors import GraderError

try:
    from distributed import Client, WorkerPlugin, get_worker, wait
except ImportError:  # pragma: no cover - the cluster extra is not installed
    Client = None
    WorkerPlugin = object

CONNECT_TIMEOUT = 30.0
WORKER_WAIT = 120.0  # seconds without any usable worker before giving up
SETUP_TIMEOUT = 300.0  # seconds a worker may take to set its session up before it is refused
POLL = 0.5  # seconds between two looks at the cluster's workers
PREFETCH = 1  # submissions queued on a worker beyond its threads


def course_bundle(course: Course) -> bytes:
    """The files of ``course`` that grade, as a gzip'd tar archive (names relative to the course)."""
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w:gz") as archive:
        for path in sorted(course_files(course)):
            archive.add(path, arcname=path.relative_to(course.root).as_posix(), recursive=False)
    return buffer.getvalue()


def unpack_bundle(bundle: bytes, dest: Path) -> Path:
    """Unpack a :func:`course_bundle` into ``dest`` (regular files only, no name outside it)."""
    dest.mkdir(parents=True, exist_ok=True)
    with tarfile.open(fileobj=io.BytesIO(bundle), mode="r:gz") as archive:
        archive.extractall(dest, filter="data")
    return dest


class DaskGradingPlugin(WorkerPlugin):
    """The grading session of one Dask worker: set up once, reused for every submission.

    ``setup`` unpacks the course into the worker's scratch directory, checks its fingerprint
    and starts the sandbox and the pytest session in the background; a worker whose
    fingerprint differs, or that lacks a required sandbox, is refused (:attr:`refused`).
    """

    idempotent = True  # a rerun of the same course reuses the running sessions

    def __init__(self, course: Course, *, course_hash: str, options: GradingOptions, only: list[str] | None):
        self.bundle = course_bundle(course)
        self.course_hash = course_hash
        # The settings a worker's session reads (its sandbox, cgroups, bubblewrap, replay); the rest is the
        # client's (a pool, a folder or a cache of this machine mean nothing there).
        self.options = GradingOptions(
            sandbox=options.sandbox, cgroups=options.cgroups, bubblewrap=options.bubblewrap, replay=options.replay
        )
        self.only = only
        settings = f"{options.cgroups}{'' if options.bubblewrap else '-nobwrap'}{'' if options.replay else '-noreplay'}"
        self.name = f"grader-{course_hash[:16]}-{options.sandbox}-{settings}"
        self.session: HostedSession | None = None
        self.refused: str | None = None
        self.address = ""

    def __getstate__(self):
        return {k: v for k, v in self.__dict__.items() if k not in ("session", "_warm")}

    def setup(self, worker):
        self.address = worker.address
        self.session, self.refused = None, None
        try:
            root = unpack_bundle(self.bundle, Path(worker.local_directory) / f"grader-course-{self.course_hash[:16]}")
            course = load_course(root)
            check_course(course, self.only, self.course_hash, where=f"worker {worker.address}")
            session = HostedSession(
                course, options=self.options, course_hash=self.course_hash, only=self.only, grader=worker.address
            )
        except GraderError as exc:
            self.refused = str(exc)
            return
        self.session = session
        # Start the sandbox and collect the tests now, off the worker's event loop.
        self._warm = threading.Thread(target=self._start, daemon=True, name="grader-warm-up")
        self._warm.start()

    def _start(self) -> None:
        try:
            self.session.start()
        except GraderError as exc:
            self.refused = f"worker {self.address}: {exc}"

    def teardown(self, worker):
        if self.session is not None:
            self.session.close()

    def status(self) -> dict:
        warm = getattr(self, "_warm", None)
        return {
            "refused": self.refused,
            "ready": self.session is not None and warm is not None and not warm.is_alive(),
            "sandbox": self.session.sandbox if self.session else "",
            "sandboxed": self.session.sandboxed if self.session else False,
        }


def grade_on_worker(parcel: Parcel, plugin_name: str) -> dict:
    """The task run by a Dask worker: grade one submission in its session; an Outcome as plain data."""
    plugin = get_worker().plugins.get(plugin_name)
    if plugin is None or plugin.session is None:
        reason = plugin.refused if plugin is not None else "the grading plugin is not set up on this worker"
        return Outcome(failure=reason or "no grading session", infrastructure=True).to_json()
    return plugin.session.grade(parcel).to_json()


def plugin_status(plugin_name: str, dask_worker=None) -> dict | None:
    """Run on a worker by the client: what its grading plugin says (None: not there yet)."""
    plugin = dask_worker.plugins.get(plugin_name)
    return plugin.status() if plugin is not None else None


def member_outcome(outcome: Outcome, worker: str, course: Course | None = None) -> Outcome:
    """What a member's answer may decide: a grade of its own student, never the whole run.

    A member that says no session can grade ("fatal") speaks for itself only: its student is
    graded elsewhere (then "not graded" after the retries), and the class goes on. A rogue
    member's forged "fatal" stopped the run after one student (review attack rogue_loopback_worker).
    With ``course``, a record must be one the course allows (its functions, each score between 0
    and the exercise's points; the totals per assignment are computed here, never taken): the
    same rogue recorded a1 = 103 of 3.
    """
    if outcome.fatal:
        return Outcome(failure=f"{worker} cannot grade: {outcome.failure}", infrastructure=True)
    record = outcome.record
    if record is None or course is None:
        return outcome
    points = {e.function: e.points for e in course.exercises}
    wrong = [
        name
        for name, f in record.result.functions.items()
        if name not in points or f.max != points[name] or not 0 <= f.score <= f.max
    ]
    if wrong:
        return Outcome(
            failure=f"{worker} sent a record the course does not allow ({', '.join(wrong[:3])})", infrastructure=True
        )
    record.assignments = totals(record.result)
    return outcome


def check_address(address: str, insecure: bool = False) -> str:
    """``address`` if connecting to it is safe; else GraderError saying why and what to do.

    Anyone who reaches a plain ``tcp://`` scheduler can join it as a worker (receive every
    submission, return chosen grades, stop the run) or as a client (run code on the workers,
    which hold the course's solutions). Loopback is no boundary: every user of this machine
    reaches its ports. So only ``tls://`` is used (mutual TLS: :func:`cluster_security`),
    unless ``insecure`` (``--insecure``, the grading option) says otherwise.
    """
    scheme, _, rest = address.partition("://")
    if not rest:
        scheme, rest = "tcp", address
    if scheme in ("tls", "wss", "gateway"):  # TLS (Dask Gateway's own, per cluster, for gateway://)
        return address
    if scheme in ("tcp", "ws") and insecure:
        return address
    raise GraderError(
        f"refusing to grade on {address}: a scheduler reached over plain {scheme}:// (on 127.0.0.1 "
        "too: every user of this machine reaches it) lets anyone who reaches it join as a worker, "
        "receive every submission and return chosen grades, or as a client and read the course's "
        "solutions; use tls:// with the credentials of `grader cluster-credentials` (the credentials "
        "option of grade-class and autograde, or $GRADER_CLUSTER_CREDENTIALS), or, on a network you trust "
        "entirely, their insecure option (or $GRADER_CLUSTER_INSECURE=1)"
    )


def cluster_security(address: str, folder: Path | None):
    """distributed's ``Security`` for ``address``: mutual TLS with the course's credentials for
    ``tls://`` (``folder``: the grading option ``credentials``, with ca.pem, member.pem, member-key.pem),
    else None."""
    if not address.startswith("tls://"):
        return None
    from distributed.security import Security

    if not folder:
        raise GraderError(
            f"{address} needs the cluster's credentials: their folder (the credentials option of grade-class "
            "and autograde, or $GRADER_CLUSTER_CREDENTIALS)"
        )
    files = {name: Path(folder) / name for name in ("ca.pem", "member.pem", "member-key.pem")}
    missing = [str(p) for p in files.values() if not p.is_file()]
    if missing:
        raise GraderError(f"missing cluster credentials: {', '.join(missing)}")
    return Security(
        tls_ca_file=str(files["ca.pem"]),
        tls_client_cert=str(files["member.pem"]),
        tls_client_key=str(files["member-key.pem"]),
        require_encryption=True,
    )


class DaskCluster:
    """The workers of the Dask cluster whose scheduler is at ``address``."""

    def __init__(
        self,
        address: str,
        course: Course,
        *,
        course_hash: str,
        only: list[str] | None,
        options: GradingOptions = GradingOptions(),
    ):
        address = check_address(address, options.insecure)
        if Client is None:
            raise GraderError(
                "grading on a Dask cluster needs the distributed package: pip install 'rl-llm-m4-grader[cluster]'"
            )
        self.address = address
        self.course = course
        self.options = options
        self.course_hash = course_hash
        self.only = only
        self.where = f"the Dask cluster at {address}"

    def connect(self):
        try:
            # What comes back (records, statuses) is plain data: msgpack only, never unpickled
            # (a member's pickle would run code in the instructor's client).
            return Client(
                self.address,
                timeout=CONNECT_TIMEOUT,
                set_as_default=False,
                security=cluster_security(self.address, self.options.credentials),
                deserializers=["msgpack", "error"],
            )
        except (OSError, TimeoutError) as exc:
            raise GraderError(f"cannot reach the Dask scheduler at {self.address}: {exc}") from None

    def run(self, dispatcher: Feed) -> None:
        client = self.connect()
        plugin = DaskGradingPlugin(self.course, course_hash=self.course_hash, options=self.options, only=self.only)
        futures: dict = {}  # future -> (student, worker)
        try:
            try:
                client.register_plugin(plugin)
            except Exception as exc:  # a worker could not even load it (no grader there): refused below
                dispatcher.listener.refused(
                    "a worker", f"could not set up the grading plugin: {type(exc).__name__}: {exc}"
                )
            self._grade(client, plugin.name, dispatcher, futures)
        finally:
            for future in futures:
                future.cancel()
            client.close()

    def _grade(self, client, plugin_name: str, dispatcher: Feed, futures: dict) -> None:
        accepted: dict[str, int] = {}  # worker -> threads
        refused: dict[str, str] = {}
        seen: dict[str, float] = {}  # worker -> when it was first seen
        workers: dict = {}
        last_usable = time.monotonic()
        last_look = 0.0
        while not dispatcher.finished:
            if time.monotonic() - last_look >= POLL:
                last_look = time.monotonic()
                workers = self._look(client, plugin_name, dispatcher, futures, accepted, refused, seen)
            if accepted:
                last_usable = time.monotonic()
            elif (workers and set(workers) <= set(refused)) or time.monotonic() - last_usable > WORKER_WAIT:
                why = "; ".join(sorted(set(refused.values()))) or "the cluster has no workers"
                raise GraderError(f"no Dask worker can grade this course ({why})")
            for worker, threads in accepted.items():
                busy = sum(1 for _, w in futures.values() if w == worker)
                while busy < threads + PREFETCH:
                    parcel = dispatcher.next(worker)
                    if parcel is None:
                        break
                    future = client.submit(
                        grade_on_worker,
                        parcel,
                        plugin_name,
                        workers=[worker],
                        allow_other_workers=False,
                        pure=False,
                        key=f"grade-{parcel.student}-{uuid.uuid4().hex[:8]}",
                    )
                    futures[future] = (parcel.student, worker)
                    busy += 1
            if not futures:
                time.sleep(POLL / 5)
                continue
            try:
                with client.as_current():
                    done, _ = wait(list(futures), timeout=POLL, return_when="FIRST_COMPLETED")
            except TimeoutError:
                continue
            for future in done:
                student, worker = futures.pop(future)
                if future.status == "finished":
                    dispatcher.outcome(student, member_outcome(Outcome.from_json(future.result()), worker, self.course))
                elif future.status != "cancelled":  # erred: the worker died under it, or Dask failed
                    error = future.exception()
                    dispatcher.lost(student, worker, f"{type(error).__name__}: {error}")

    def _look(self, client, plugin_name, dispatcher, futures, accepted, refused, seen) -> dict:
        """Notice workers that came (check their course) and workers that went (retry their work);
        the workers there now."""
        workers = client.nthreads()
        for worker in [w for w in accepted if w not in workers]:
            del accepted[worker]
            for future, (student, where) in list(futures.items()):
                if where == worker:
                    future.cancel()
                    del futures[future]
            dispatcher.session_lost(worker, "the Dask worker left the cluster (killed, out of memory, or stopped)")
        new = [w for w in workers if w not in accepted and w not in refused]
        if not new:
            return workers
        for worker, status in client.run(plugin_status, plugin_name, workers=new, on_error="return").items():
            seen.setdefault(worker, time.monotonic())
            if not isinstance(status, dict) or not status.get("ready") and not status.get("refused"):
                # Still setting up, or the plugin not there (yet): look again later, for a while.
                if time.monotonic() - seen[worker] > SETUP_TIMEOUT:
                    status = {
                        "refused": f"worker {worker} did not set up a grading session in "
                        f"{SETUP_TIMEOUT:g} s (is the grader installed there?)"
                    }
                else:
                    continue
            if status.get("refused"):
                refused[worker] = status["refused"]
                dispatcher.listener.refused(worker, status["refused"])
                continue
            accepted[worker] = max(1, int(workers[worker]))
            dispatcher.listener.started(worker, status.get("sandbox", ""), status.get("sandboxed"))
        return workers
