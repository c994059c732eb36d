"""How a class is graded: :class:`GradingOptions`, every setting of a grading command in one place.

Each setting has this one name from the command line to the grading sessions, and is read once,
at the command line (:mod:`grader.options`: an option, else the documented default of the
environment variable that table names); nothing below reads the environment.
"""

from __future__ import annotations

import argparse
from dataclasses import dataclass
from pathlib import Path

from grader.core import cache as grader_cache
from grader.engine.backend import Backend
from grader.options import grading_settings


@dataclass(frozen=True)
class GradingOptions:
    """How a class is graded: the settings of a grading command, read once from its command line.

    Attributes
    ----------
    jobs
        Grading processes on this machine (never more than there are submissions to grade).
    sandbox
        ``"auto"`` (bubblewrap when it works, else a loud warning), ``"require"`` or ``"off"``.
    scheduler
        A Dask scheduler's address: grade on its workers instead of ``jobs`` processes here.
    only
        Grade these functions only (the records then hold only them); None: every function.
    force
        Grade again what has a current record.
    students
        The students a command was asked for (``--student``); the commands choose the
        submissions with it, :func:`~grader.engine.dispatch.grade_class` grades what its
        :class:`~grader.engine.dispatch.ClassRoster` holds.
    out
        Where the records go: one class's folder for :func:`~grader.engine.dispatch.grade_class`; for
        ``grader autograde`` the folder of one per assignment (None: grader-results/ in the course directory).
    pool
        Grading sessions the caller keeps for several runs (a :class:`~grader.engine.local.LocalPool`
        used as a context manager, whose ``only`` includes these functions); None: new ones per run.
    insecure
        Accept a plain ``tcp://`` scheduler (``--insecure``): on a network trusted entirely only.
    credentials
        The folder of the cluster's TLS credentials (``grader cluster-credentials``), for ``tls://``.
    replay
        Replay the reference's traces of the hidden tests (:mod:`grader.core.replay`); False: every
        test runs as a test. The records are the same either way.
    cgroups
        Per-submission cgroups: ``"auto"`` (where this machine lets the grader make them, else the
        fallback bounds), ``"require"`` (refuse a required sandbox without them) or ``"off"``.
    bubblewrap
        Use bubblewrap when it works (False: as if it were not installed: the fallback without it).
    cache
        The grader's cache directory for the grading processes on this machine (None: this process's,
        :func:`grader.core.cache.current`, which the command line sets from the same setting; a Dask
        worker keeps its own).
    """

    jobs: int = 1
    sandbox: str = "auto"
    scheduler: str | None = None
    only: tuple[str, ...] | None = None
    force: bool = False
    students: tuple[str, ...] | None = None
    out: Path | None = None
    pool: Backend | None = None
    insecure: bool = False
    credentials: Path | None = None
    replay: bool = True
    cgroups: str = "auto"
    bubblewrap: bool = True
    cache: Path | None = None

    @classmethod
    def from_command_line(cls, args: argparse.Namespace, **fields) -> GradingOptions:
        """The options of a grading command: the settings of its command line (an option, else the
        documented default of its environment variable: :func:`grader.options.grading_settings`) and
        ``fields``, the command's own (jobs, out ...). This process's cache directory
        (:mod:`grader.core.cache`) is set from the same setting, here, once."""
        settings = grading_settings(args)
        grader_cache.configure(settings["cache"])
        return cls(**{**settings, **fields})
