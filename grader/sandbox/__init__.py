"""Confine the student's code: a bubblewrap sandbox, resource limits, one zygote per grader.

``sandbox_launcher(course)`` is what grading commands use::

    with sandbox_launcher(course, mode="auto", warn=print) as launcher:
        grade_here(course, parcels, launcher=launcher)

See :mod:`grader.sandbox.bwrap` for what the sandbox sees, :mod:`grader.sandbox.limits`
for the limits, :mod:`grader.sandbox.zygote` for how workers are forked.
"""

from __future__ import annotations

from grader.sandbox.bwrap import probe
from grader.sandbox.launcher import ForkedWorker, SandboxLauncher, WorkerExit
from grader.sandbox.limits import Limits

__all__ = [
    "ForkedWorker",
    "Limits",
    "SandboxLauncher",
    "WorkerExit",
    "probe",
    "sandbox_launcher",
    "NO_SANDBOX_WARNING",
    "add_sandbox_options",
    "sandbox_mode",
]

NO_SANDBOX_WARNING = (
    "WARNING: grading WITHOUT a sandbox ({reason}).\n"
    "Student code runs with resource limits only: it can read and write your files, reach the "
    "network and leave processes behind. Install bubblewrap, or pass --require-sandbox to refuse "
    "to grade without it."
)


def sandbox_launcher(
    course, *, mode: str = "auto", warn=None, cgroups: str = "auto", bubblewrap: bool = True
) -> SandboxLauncher:
    """A :class:`SandboxLauncher` with the limits of ``course`` (course.yaml ``sandbox:``).

    ``warn(text)`` receives the loud warning when bubblewrap is not used; ``cgroups`` and
    ``bubblewrap``: the grading options of the same names.
    """

    def loud(reason: str) -> None:
        if warn is not None:
            warn(NO_SANDBOX_WARNING.format(reason=reason))

    # The course's root first: without bubblewrap student code sees the host's files as any user, and a
    # course whose solutions/ and tests are private still held them in .git (review: fallback_reads_git).
    private = tuple(
        p
        for p in (
            getattr(course, "root", None),
            getattr(course, "tests_dir", None),
            getattr(course, "solutions_dir", None),
        )
        if p
    )
    return SandboxLauncher(
        Limits.from_course(course), sandbox=mode, warn=loud, private=private, cgroup_mode=cgroups, bubblewrap=bubblewrap
    )


def add_sandbox_options(parser) -> None:
    """``--require-sandbox`` / ``--no-sandbox`` for a grading command."""
    group = parser.add_mutually_exclusive_group()
    group.add_argument(
        "--require-sandbox",
        action="store_true",
        help="refuse to grade unless the bubblewrap sandbox works (also: course.yaml sandbox.require: true)",
    )
    group.add_argument(
        "--no-sandbox",
        action="store_true",
        help="run student code with resource limits only, without bubblewrap (trusted code only)",
    )


def sandbox_mode(args) -> str:
    if getattr(args, "require_sandbox", False):
        return "require"
    if getattr(args, "no_sandbox", False):
        return "off"
    return "auto"
