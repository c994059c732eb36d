"""Catch processes that student code tried to leave behind.

A submission may start a child that detaches (a new session, a double fork) to
outlive grading and rewrite its grade later. Killing the worker's process group
does not reach it. Marking the grading process as a *child subreaper* (Linux
``PR_SET_CHILD_SUBREAPER``) makes every orphaned descendant its child instead of
init's, so once grading is over the stragglers can be found and killed before
any grade is written.
"""

from __future__ import annotations

import ctypes
import os
import signal
import sys
import time

PR_SET_CHILD_SUBREAPER = 36


def become_subreaper() -> bool:
    """Adopt orphaned descendants (Linux only); True when it worked."""
    if not sys.platform.startswith("linux"):
        return False
    try:
        libc = ctypes.CDLL(None, use_errno=True)
        return libc.prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) == 0
    except (OSError, AttributeError):
        return False


def _children(pid: int) -> list[tuple[int, int]]:
    """(pid, process group) of the live children of ``pid``, from /proc."""
    found = []
    try:
        entries = os.listdir("/proc")
    except OSError:
        return found
    for entry in entries:
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat", encoding="utf-8", errors="replace") as handle:
                stat = handle.read()
        except OSError:
            continue
        # The command name may contain spaces and parentheses: fields start after the last ')'.
        fields = stat[stat.rfind(")") + 2:].split()
        if len(fields) > 3 and fields[0] != "Z" and int(fields[1]) == pid:
            found.append((int(entry), int(fields[2])))
    return found


def kill_strays(rounds: int = 5) -> list[int]:
    """Kill adopted stragglers: our children outside our own process group; return their pids.

    The grader's own helpers (a multiprocessing resource tracker, for example) stay
    in our process group; a detached student process does not.
    """
    me, my_group = os.getpid(), os.getpgrp()
    killed: list[int] = []
    for _ in range(rounds):
        strays = [(pid, group) for pid, group in _children(me) if group != my_group]
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
        while time.monotonic() < deadline:
            try:
                if os.waitpid(-1, os.WNOHANG) == (0, 0):
                    time.sleep(0.05)
            except ChildProcessError:
                break
    return killed
