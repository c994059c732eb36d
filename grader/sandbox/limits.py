"""Resource limits of a grading worker, read from course.yaml's ``sandbox:`` section."""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass

from grader.worker.replies import DEFAULT_REPLY_KB

MB = 1024 * 1024

# Limits (setrlimit) applied to each forked worker before the submission is imported.
DEFAULT_MEMORY_MB = 2048
DEFAULT_PROCESSES = 32
DEFAULT_FILE_SIZE_MB = 16
DEFAULT_OPEN_FILES = 256
DEFAULT_OUTPUT_KB = 64


@dataclass(frozen=True)
class Limits:
    """What one submission's worker may use.

    Attributes
    ----------
    memory_mb : address space (RLIMIT_AS) of the worker, in MiB.
    cpu_seconds : CPU time (RLIMIT_CPU) of one worker process; a worker restarted
        after a time-out starts again from zero.
    processes : processes and threads the worker may run at once (RLIMIT_NPROC);
        enforced only inside the sandbox, where the worker has a user id of its own.
    file_size_mb : largest file the worker may write (RLIMIT_FSIZE); this also caps
        its captured output, so a print flood stops there.
    open_files : open file descriptors (RLIMIT_NOFILE).
    output_kb : how much of the worker's output is kept for people to read.
    reply_kb : the longest reply the grader reads from a worker (a function's return
        value, as the wire encodes it); a longer one costs that function.
    require : refuse to grade when the sandbox is not available.
    """

    memory_mb: float = DEFAULT_MEMORY_MB
    cpu_seconds: float = 300.0
    processes: int = DEFAULT_PROCESSES
    file_size_mb: float = DEFAULT_FILE_SIZE_MB
    open_files: int = DEFAULT_OPEN_FILES
    output_kb: float = DEFAULT_OUTPUT_KB
    reply_kb: float = DEFAULT_REPLY_KB
    require: bool = False

    @classmethod
    def from_course(cls, course) -> "Limits":
        """Defaults overridden by course.yaml's ``sandbox:`` mapping.

        The default CPU budget is the sum of every function's time limit (a correct
        submission can never need more) plus a margin for imports.
        """
        config = dict(getattr(course, "sandbox", {}) or {})
        cpu = sum(e.time_limit for e in course.exercises) + 30.0
        return cls(
            memory_mb=float(config.get("memory_mb", DEFAULT_MEMORY_MB)),
            cpu_seconds=float(config.get("cpu_seconds", cpu)),
            processes=int(config.get("processes", DEFAULT_PROCESSES)),
            file_size_mb=float(config.get("file_size_mb", DEFAULT_FILE_SIZE_MB)),
            open_files=int(config.get("open_files", DEFAULT_OPEN_FILES)),
            output_kb=float(config.get("output_kb", DEFAULT_OUTPUT_KB)),
            reply_kb=float(config.get("reply_kb", DEFAULT_REPLY_KB)),
            require=bool(config.get("require", False)),
        )

    @property
    def scratch_bytes(self) -> int:
        """Size of the worker's private scratch filesystem (a tmpfs, so it is memory)."""
        return int(max(64 * MB, 4 * self.file_size_mb * MB))

    @property
    def output_bytes(self) -> int:
        return int(self.output_kb * 1024)

    @property
    def reply_bytes(self) -> int:
        return int(self.reply_kb * 1024)

    def near_memory_limit(self, peak: int | None) -> bool:
        """Did a worker whose kernel-reported peak memory is ``peak`` bytes run into RLIMIT_AS?

        An allocation that fails leaves no trace in the peak: the peak must be within
        the margin of the limit that a typical failing allocation needs (a tenth of
        the limit, at least 32 MiB). One far larger than what is left goes unnoticed.
        """
        limit = int(self.memory_mb * MB)
        return peak is not None and peak >= limit - max(limit // 10, 32 * MB)

    def rlimits(self, *, processes: bool) -> dict[str, tuple[int, int]]:
        """``{RLIMIT name: (soft, hard)}`` for the worker process.

        ``processes`` is False outside the sandbox: there RLIMIT_NPROC would count
        every process of the instructor's user, not just the worker's.
        """
        cpu = int(math.ceil(self.cpu_seconds))
        limits = {
            "RLIMIT_AS": (int(self.memory_mb * MB),) * 2,
            # SIGXCPU at the soft limit, SIGKILL one second later.
            "RLIMIT_CPU": (cpu, cpu + 1),
            "RLIMIT_FSIZE": (int(self.file_size_mb * MB),) * 2,
            "RLIMIT_NOFILE": (int(self.open_files),) * 2,
            "RLIMIT_CORE": (0, 0),
        }
        if processes:
            limits["RLIMIT_NPROC"] = (int(self.processes),) * 2
        return limits

    def to_json(self) -> dict:
        return asdict(self)
