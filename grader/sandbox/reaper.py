"""Process helpers of the trusted side: die with the parent, adopt and kill what student code left behind.

A submission may start a child that detaches (a new session, a double fork) to
outlive grading and rewrite its grade later. Killing the worker's process group
does not reach it. Marking the grading process as a *child subreaper* (Linux
``PR_SET_CHILD_SUBREAPER``) makes every orphaned descendant its child instead of
init's, so once grading is over the stragglers can be found and killed before
any grade is written.

The primitives (``prctl``, listing a process's children) live once, in the standalone
:mod:`grader.sandbox.zygote`, which uses them inside the sandbox.
"""

from __future__ import annotations

import os
import signal
import time

from grader.sandbox.zygote import PR_SET_CHILD_SUBREAPER, PR_SET_PDEATHSIG, children, prctl


def become_subreaper() -> bool:
    """Adopt orphaned descendants (Linux only); True when it worked."""
    try:
        prctl(PR_SET_CHILD_SUBREAPER, 1)
        return True
    except (OSError, AttributeError):
        return False


def die_with_parent() -> None:
    """Be killed when the parent process ends (Linux only; elsewhere nothing)."""
    try:
        prctl(PR_SET_PDEATHSIG, signal.SIGKILL)
    except (OSError, AttributeError):  # pragma: no cover - not Linux
        pass


def kill_strays(rounds: int = 5, keep: set[int] = frozenset()) -> list[int]:
    """Kill adopted stragglers: our children outside our own process group; return their pids.

    The grader's own helpers (a multiprocessing resource tracker, for example) stay
    in our process group; a detached student process does not. ``keep``: the grader's
    own processes in groups of their own (grading processes kept for the next class).
    """
    me, my_group = os.getpid(), os.getpgrp()
    killed: list[int] = []
    for _ in range(rounds):
        strays = []
        for pid in children(me):
            try:
                group = os.getpgid(pid)
            except OSError:
                continue
            if group != my_group and pid not in keep:
                strays.append((pid, group))
        if not strays:
            break
        for pid, group in strays:
            for target, kill in ((group, os.killpg), (pid, os.kill)):
                try:
                    kill(target, signal.SIGKILL)
                except (ProcessLookupError, PermissionError):
                    pass
            killed.append(pid)
        # Reap them, and give their own children time to be re-parented to us.
        deadline = time.monotonic() + 1.0
        while time.monotonic() < deadline and strays:
            for pid, _ in list(strays):  # only these: a kept process is waited for by its owner
                try:
                    if os.waitpid(pid, os.WNOHANG) != (0, 0):
                        strays.remove((pid, _))
                except ChildProcessError:
                    strays.remove((pid, _))
            if strays:
                time.sleep(0.05)
    return killed
