"""Shared pieces of the sandbox tests."""

from __future__ import annotations

import os

import pytest

from grader.sandbox import probe
from grader.worker import runtime

SETUP, WHY_NOT = probe()
needs_bwrap = pytest.mark.skipif(SETUP is None, reason=f"no working bubblewrap sandbox: {WHY_NOT}")


# A worker module that measures what it can write outside its scratch /tmp.
SPACE = """
import os

def space():
    seen = {}
    try:
        with open("/dev/planted", "wb") as f:
            f.write(b"x")
        seen["dev"] = True
    except OSError:
        seen["dev"] = False
    written = 0
    try:
        for i in range(128):  # 1 MiB files, well under the file size limit
            with open("/dev/shm/fill%d" % i, "wb") as f:
                f.write(bytes(1 << 20))
            written += 1 << 20
    except OSError:
        pass
    seen["shm"] = written
    return seen
"""


def call(worker, module: str, function: str, *args):
    """``module.function(*args)`` in a started worker; the decoded value."""
    reply = worker.request(
        {
            "op": "call",
            "module": module,
            "function": function,
            "args": runtime.encode(list(args)),
            "kwargs": runtime.encode({}),
        },
        timeout=30,
    )
    assert reply.get("ok"), reply
    return runtime.decode(reply["value"])


def _parent(pid: str) -> int:
    with open(f"/proc/{pid}/stat") as f:
        return int(f.read().rsplit(")", 1)[1].split()[1])


def leftover_processes(launcher) -> list[str]:
    """Host processes the launcher's workers left behind: its tag on the command line,
    or (when the grader runs as root) the sandbox's own user id. The zygote itself
    (and bubblewrap around it) is the launcher's, not a leftover."""
    zygote = getattr(launcher, "_zygote", None)
    own = {zygote.process.pid} if zygote is not None else set()
    found = []
    for name in os.listdir("/proc"):
        if not name.isdigit() or int(name) == os.getpid() or int(name) in own:
            continue
        try:
            if own and _parent(name) in own:
                continue  # the zygote (bubblewrap's child)
        except (OSError, ValueError, IndexError):
            continue
        try:
            with open(f"/proc/{name}/cmdline", "rb") as f:
                cmdline = f.read().replace(b"\0", b" ").decode("utf-8", "replace")
            with open(f"/proc/{name}/status") as f:
                status = f.read()
        except OSError:
            continue
        uid_line = next((line for line in status.splitlines() if line.startswith("Uid:")), "")
        uids = {int(x) for x in uid_line.split()[1:]} if uid_line else set()
        state = next((line for line in status.splitlines() if line.startswith("State:")), "")
        if " Z " in state or "zombie" in state:
            continue
        if launcher.tag in cmdline or (launcher.uid is not None and launcher.uid in uids):
            found.append(f"{name}: {cmdline.strip()[:120]}")
    return found
