"""Sockets in every sandbox mode: which families open, and who accounts for their buffers (issue 30,
items 1 and 4).

Before: a child forked by a submission opened TCP connections on the sandbox's own loopback and let
their queues fill, 824 MiB held under a bound of 384 MiB with no memory limit event (cgroup v1 charges
TCP buffers only once ``memory.kmem.tcp.limit_in_bytes`` is set); ``socket(AF_VSOCK)`` reached a
virtual machine's host and ``AF_NETLINK`` was open. Each test runs in every mode the grader has:
bubblewrap with a cgroup (with and without the seccomp filter: a machine whose architecture the filter
does not know), bubblewrap without a cgroup (the fallback), and, as root, without bubblewrap, with and
without a cgroup. Memory is measured from the host (``/proc/net/sockstat``) and from what the
submission's child managed to queue.
"""

from __future__ import annotations

import os

import pytest

from grader.sandbox import cgroups
from tests.sandbox import socket_attacks
from tests.sandbox.modes import FILTERED, HIERARCHY, MODES, NO_CGROUPS, readable_venv, runner  # noqa: F401

BOUND = cgroups.memory_bound(socket_attacks.LIMIT_MB)
NOISE = 32 * 2**20
AF_UNIX = 1


@pytest.fixture()
def run(request, tmp_path):
    """``run(what)``: one attack in the mode of the test's parameter."""
    return runner(request, tmp_path, socket_attacks, timeout=300)


def allowed_families(mode: str) -> set[int]:
    """AF_UNIX only where its names are the sandbox's own (bubblewrap) and its buffers the cgroup's."""
    bubblewrap, cgroup, *_ = MODES[mode]
    return {AF_UNIX} if bubblewrap and cgroup else set()


@pytest.mark.parametrize("run", FILTERED, indirect=True)
def test_only_the_listed_socket_families_open(run, request):
    # Before: AF_INET, AF_INET6, AF_NETLINK, AF_VSOCK, AF_ALG, AF_PACKET (as root) ... opened in every mode.
    mode = request.node.callspec.params["run"]
    found = run("families")
    assert "value" in found, found
    seen = found["value"]
    assert set(seen["opened"]) == allowed_families(mode), (found["describe"], seen)
    for name in ("AF_INET", "AF_INET6", "AF_NETLINK", "AF_VSOCK", "AF_PACKET", "AF_ALG"):
        assert seen["named"][name] == "EAFNOSUPPORT", (name, seen["named"])
    unix = "opened" if AF_UNIX in allowed_families(mode) else "EAFNOSUPPORT"
    assert seen["named"]["AF_UNIX"] == seen["named"]["socketpair(AF_UNIX)"] == unix, seen["named"]


@pytest.mark.parametrize("run", list(MODES), indirect=True)
def test_tcp_queues_stay_within_the_submissions_bound(run, request):
    # Before: 640 MiB queued on the sandbox's loopback under a bound of 384 MiB, in every mode.
    mode = request.node.callspec.params["run"]
    found = run("tcp")
    most = found["queued"]  # the most the child said it had queued, also when the kernel killed the worker
    assert most <= BOUND + NOISE, f"{mode}: the submission queued {most / 2**20:.0f} MiB: {found}"
    assert found["tcp_held"] <= BOUND + NOISE, f"{mode}: the host held {found['tcp_held'] / 2**20:.0f} MiB: {found}"
    if MODES[mode][2]:
        assert most == 0 and found["value"]["note"] == "EAFNOSUPPORT", found  # AF_INET is not on the list
    else:
        # Without the filter the cgroup's TCP account refuses it: a memory limit event, as for any memory.
        assert found["memory_event"], found


@pytest.mark.parametrize("run", list(MODES), indirect=True)
def test_unix_queues_stay_within_the_submissions_bound(run, request):
    # Before: the fallback without a cgroup queued the whole 640 MiB: nothing accounts for a socket's buffers there.
    mode = request.node.callspec.params["run"]
    found = run("unix")
    most = found["queued"]  # the most the child said it had queued, also when the kernel killed the worker
    assert most <= BOUND + NOISE, f"{mode}: the submission queued {most / 2**20:.0f} MiB: {found}"
    if AF_UNIX in allowed_families(mode) or not MODES[mode][2]:
        # Open: the kernel charges a Unix socket's buffers to the cgroup, which refuses past the bound.
        assert found["memory_event"], found
    else:
        assert most == 0 and found["value"]["note"] == "EAFNOSUPPORT", found


def test_a_submissions_cgroup_holds_its_socket_buffers_within_its_bound(tmp_path):
    """cgroup v1 charges TCP buffers to a counter of their own, beside the memory limit: the bound is
    split between them. cgroup v2 charges them to ``memory.current`` with everything else."""
    if HIERARCHY is not None and HIERARCHY.kind == "cgroup v1":
        parent = f"grader-test-{os.getpid()}"
        group = cgroups.SubmissionCgroup(HIERARCHY, f"{parent}/s1", BOUND, 8)
        try:
            memory = group.dirs[0]
            tcp = int((memory / "memory.kmem.tcp.limit_in_bytes").read_text())
            rest = int((memory / "memory.limit_in_bytes").read_text())
            assert tcp == cgroups.SOCKET_BYTES and tcp + rest == BOUND, (tcp, rest)
        finally:
            group.remove()
            cgroups.remove_parent(HIERARCHY, parent)
    unified = tmp_path / "v2"
    unified.mkdir()
    cgroups.SubmissionCgroup(cgroups.Hierarchy("cgroup v2", (unified,)), "s1", BOUND, 8)
    assert int((unified / "s1" / "memory.max").read_text()) == BOUND
    assert not (unified / "s1" / "memory.kmem.tcp.limit_in_bytes").exists()
