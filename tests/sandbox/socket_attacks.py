"""A submission's sockets, attacked and measured from the host (issue 30, item 1).

Shared by ``tests/sandbox/test_sockets.py`` and the script it runs as root without bubblewrap
(a Python every user can read, in a process of its own): :data:`STUDENT` is the submission,
:func:`attack` grades one of its functions in a launcher and measures the host while the
submission's forked child holds what it managed to queue.
"""

from __future__ import annotations

import json
import os
import re
import time
from pathlib import Path

from grader.sandbox import SandboxLauncher, bwrap
from grader.sandbox.limits import Limits
from grader.worker import runtime
from grader.worker.client import WorkerProcess

LIMIT_MB = 256
TARGET_MB = 640  # 2.5 times the limit, as tests/sandbox/test_accounting.py tries with memfds

# The submission. Each attack runs in a child it forks (the worker's own function returns while the child
# holds its sockets), which reports after every connection how much it has queued so far: killed by the
# kernel at a limit, it has still said how far it got.
STUDENT = r'''
import errno, json, os, select, socket, time

def families():
    """Which families a socket (and a socket pair) opens with; the errno of the named ones."""
    opened = []
    for family in range(1, 64):
        for kind in (socket.SOCK_STREAM, socket.SOCK_DGRAM, socket.SOCK_RAW, socket.SOCK_SEQPACKET):
            try:
                socket.socket(family, kind).close()
            except OSError:
                continue
            opened.append(family)
            break
    named = {}
    for name, family, kind in (
        ("AF_UNIX", socket.AF_UNIX, socket.SOCK_STREAM),
        ("AF_INET", socket.AF_INET, socket.SOCK_STREAM),
        ("AF_INET6", socket.AF_INET6, socket.SOCK_STREAM),
        ("AF_NETLINK", 16, socket.SOCK_RAW),
        ("AF_VSOCK", 40, socket.SOCK_STREAM),
        ("AF_PACKET", 17, socket.SOCK_DGRAM),
        ("AF_ALG", 38, socket.SOCK_SEQPACKET),
    ):
        try:
            socket.socket(family, kind).close()
            named[name] = "opened"
        except OSError as exc:
            named[name] = errno.errorcode.get(exc.errno, str(exc.errno))
    try:
        pair = socket.socketpair()
        named["socketpair(AF_UNIX)"] = "opened"
        for s in pair:
            s.close()
    except OSError as exc:
        named["socketpair(AF_UNIX)"] = errno.errorcode.get(exc.errno, str(exc.errno))
    return {"opened": opened, "named": named}


def _fill(sock, chunk):
    sock.setblocking(False)
    sent = 0
    try:
        while True:
            sent += sock.send(chunk)
    except (BlockingIOError, InterruptedError):
        pass
    except OSError:
        pass
    return sent


def _tcp(target, report):
    server = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    server.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 64 << 20)  # the accepted sockets inherit it
    server.bind(("127.0.0.1", 0))
    server.listen(64)
    port = server.getsockname()[1]
    keep, held, chunk = [server], 0, bytes(1 << 16)
    while held < target and len(keep) < 200:
        client = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        client.setsockopt(socket.SOL_SOCKET, socket.SO_SNDBUF, 64 << 20)  # up to net.core.wmem_max
        client.connect(("127.0.0.1", port))
        peer, _ = server.accept()
        keep += [client, peer]
        held += _fill(client, chunk)
        report(held)
    return keep


def _unix(target, report):
    keep, held, chunk = [], 0, bytes(1 << 16)
    while held < target and len(keep) < 200:
        a, b = socket.socketpair(socket.AF_UNIX, socket.SOCK_STREAM)
        for s in (a, b):
            s.setsockopt(socket.SOL_SOCKET, socket.SO_SNDBUF, 64 << 20)
        keep += [a, b]
        held += _fill(a, chunk) + _fill(b, chunk)
        report(held)
    return keep


def queues(kind, target_mb):
    """A forked child opens sockets of ``kind`` ("tcp" on the sandbox's loopback, or "unix") and lets
    their queues fill, up to ``target_mb``; it keeps them while this returns the most it held."""
    read, write = os.pipe()
    pid = os.fork()
    if pid == 0:
        os.close(read)
        note = ""
        try:
            # To the parent, and to the worker's output, which the grader keeps whoever the kernel kills.
            report = lambda held: (os.write(write, b"%d\n" % held), os.write(1, b"queued %d\n" % held))
            keep = (_tcp if kind == "tcp" else _unix)(target_mb << 20, report)
        except OSError as exc:
            note = errno.errorcode.get(exc.errno, str(exc))
        os.write(write, ("done " + note + "\n").encode())
        time.sleep(120)
        os._exit(0)
    os.close(write)
    most, note, data, deadline = 0, None, b"", time.monotonic() + 40
    while time.monotonic() < deadline:
        if not select.select([read], [], [], 1.0)[0]:
            continue
        chunk = os.read(read, 65536)
        if not chunk:
            note = "the child died"
            break
        data += chunk
        *lines, data = data.split(b"\n")
        for line in lines:
            if line.startswith(b"done"):
                note = line[5:].decode()
            else:
                most = max(most, int(line))
        if note is not None:
            break
    return {"most": most, "note": note}
'''


def tcp_memory() -> int:
    """Bytes in every TCP socket's queues on this machine (/proc/net/sockstat's ``mem``, in pages: one
    figure for all network namespaces)."""
    for line in Path("/proc/net/sockstat").read_text().splitlines():
        if line.startswith("TCP:"):
            fields = line.split()
            return int(fields[fields.index("mem") + 1]) * 4096
    raise AssertionError("no TCP line in /proc/net/sockstat")


def _call(worker: WorkerProcess, function: str, *args, timeout: float = 60) -> dict:
    reply = worker.request(
        {
            "op": "call",
            "module": "sockets",
            "function": function,
            "args": runtime.encode(list(args)),
            "kwargs": runtime.encode({}),
        },
        timeout=timeout,
    )
    return {"value": runtime.decode(reply["value"])} if reply.get("ok") else {"error": reply}


def attack(directory: Path, what: str, **options) -> dict:
    """Run one attack (``families``, ``tcp`` or ``unix``) in a fresh launcher of ``options`` under
    ``LIMIT_MB``; what the submission saw, what the host held meanwhile, and the launcher's words."""
    directory = Path(directory)
    directory.mkdir(parents=True, exist_ok=True)
    if os.environ.get("GRADER_NO_CGROUPS"):
        # Launchers of one process share a user id, and without a cgroup its process limit is 4: the last
        # attack's processes, killed but still freeing their sockets (zombies too), must be gone.
        deadline = time.monotonic() + 10
        while _processes_of(bwrap.pick_uid()) and time.monotonic() < deadline:
            time.sleep(0.05)
    (directory / "sockets.py").write_text(STUDENT)
    # The modes' variables, as a command line reads them (grader/options.py): the launcher's own settings.
    options.setdefault("cgroup_mode", "off" if os.environ.get("GRADER_NO_CGROUPS") else "auto")
    options.setdefault("bubblewrap", not os.environ.get("GRADER_NO_BWRAP"))
    with SandboxLauncher(Limits(memory_mb=LIMIT_MB), **options) as launcher:
        found = {"describe": launcher.describe()}
        before = tcp_memory()
        worker = WorkerProcess(directory, launcher)
        worker.start()
        try:
            if what == "families":
                found.update(_call(worker, "families"))
            else:
                try:
                    found.update(_call(worker, "queues", what, TARGET_MB))
                except Exception as exc:  # noqa: BLE001 - the worker killed at its limit: what we want
                    found["died"] = repr(exc)
                # Measured outside, while the child (if alive) holds its sockets.
                found["tcp_held"] = tcp_memory() - before
        finally:
            worker.kill()
        exits = launcher.take_history(directory.resolve())
        found["peak"] = max((e.peak_memory or 0 for e in exits), default=0)
        said = [int(n) for e in exits for n in re.findall(r"^queued (\d+)$", e.output, re.M)]
        found["queued"] = max([*said, found.get("value", {}).get("most", 0)])
        found["memory_event"] = any(launcher.limits.near_memory_limit(e.peak_memory) for e in exits)
    return found


def _processes_of(uid: int) -> list[str]:
    """Processes (zombies too) whose real user id is ``uid``."""
    found = []
    for name in os.listdir("/proc"):
        try:
            status = Path(f"/proc/{name}/status").read_text() if name.isdigit() else ""
        except OSError:
            continue
        line = next((line for line in status.splitlines() if line.startswith("Uid:")), "")
        if line and int(line.split()[1]) == uid:
            found.append(name)
    return found


SCRIPT = """
import json, sys
from tests.sandbox.socket_attacks import attack
print(json.dumps(attack(sys.argv[1], sys.argv[2], sandbox="auto")))
"""


def parse(stdout: str) -> dict:
    return json.loads(stdout.strip().splitlines()[-1])
