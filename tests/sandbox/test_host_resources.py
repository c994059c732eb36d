"""The host's ptys and disk in every sandbox mode: what a submission can hold that no cgroup charges.

Before (the review, A02): bubblewrap's ``--dev`` gave the sandbox a devpts instance (``ptmxmode=666``);
26 children of one submission held 3,071 ptys, the host's whole pool for new devpts instances (another
bubblewrap sandbox then got ENOSPC), and 200 MiB of kernel memory (Slab, vmalloc) while its cgroup was
charged 59 MiB. (A29) ``fallocate(FALLOC_FL_KEEP_SIZE)`` on the worker's stdout, a file on the host's
disk, held 2 GiB of the host's /tmp under a 16 MiB ``RLIMIT_FSIZE``: the kernel checks that limit only
where a file's size grows. Each test runs in every mode the grader has (:data:`MODES` of
``test_sockets.py``), measured from the host: the ptys' global count, the capture file's blocks.
Without bubblewrap the worker saw the host's ``/dev/ptmx`` (4 of 4 ptys opened in both modes; measured
1,000 held with no cgroup, 250 per process with one): now closed where the machine allows, by a cgroup v1
``devices`` controller denying the pty devices, and by root hiding every devpts in the zygote's own
mount namespace.
"""

from __future__ import annotations

import errno
import os
import shutil
import subprocess
import sys

import pytest

from grader.sandbox import cgroups, seccomp
from grader.sandbox.launcher import hide_ptys_problem
from tests.sandbox import host_attacks
from tests.sandbox.modes import FILTERED, HIERARCHY, MODES, NO_CGROUPS, readable_venv, runner  # noqa: F401

LIMIT = host_attacks.FILE_SIZE_MB << 20
SETPRIV = shutil.which("setpriv")


@pytest.fixture()
def run(request, tmp_path):
    """``run(what)``: one attack in the mode of the test's parameter."""
    return runner(request, tmp_path, host_attacks, timeout=120)


@pytest.mark.parametrize("run", list(MODES), indirect=True)
def test_a_submission_gets_a_pty_only_where_the_hosts_dev_is_its_dev(run, request):
    # Before: os.openpty() opened in every mode; under bubblewrap from a devpts instance of its own whose
    # ptys count in the host's global pool (3,071 held by one submission, the review).
    mode = request.node.callspec.params["run"]
    found = run("ptys")
    assert "value" in found, found
    seen = found["value"]
    if MODES[mode][0]:
        # Its own /dev: no ptmx and no devpts, whatever the filter; read-only.
        assert seen["opened"] == 0 and seen["openpty"] == seen["pts/ptmx"] == "ENOENT", found
        assert not {"ptmx", "pts", "tty", "console"} & set(seen["dev"]), seen["dev"]
        assert not seen["dev writable"], found
        return
    # The host's /dev, whose ptmx the filter cannot tell from any other file: closed where this machine lets
    # the grader, by the devices controller (cgroup v1) or by a mount namespace of the zygote's own (root).
    denied = MODES[mode][1] and HIERARCHY.denies_ptys
    hidden = not hide_ptys_problem()
    if denied or hidden:
        # The devices controller refuses the open (EPERM) before any devpts is looked for (ENODEV).
        assert seen["opened"] == 0 and seen["openpty"] == ("EPERM" if denied else "ENODEV"), found
        assert found["ptys_held"] <= 0, found  # the host's count did not grow (others' ptys may close)
    else:
        # Nothing but descriptors and processes: as many as they hold (docs/class_grading.md, the threat
        # model: RLIMIT_NOFILE per process, times processes).
        assert seen["opened"] == host_attacks.PTYS and seen["openpty"] == "opened", found
    assert ("ptys denied" in found["describe"]) == denied, found["describe"]
    assert ("host's ptys hidden" in found["describe"]) == hidden, found["describe"]


@pytest.mark.skipif(
    os.geteuid() != 0 or SETPRIV is None or HIERARCHY is None or seccomp.native_arch() is None,
    reason="needs root, setpriv, a cgroup and the filter",
)
def test_root_without_cap_sys_admin_grades_with_the_hosts_ptys_and_says_so(request):
    # A container's root: no mount namespace, and a devices cgroup it may make but not write (EPERM). The
    # first version of the devices cgroup failed every submission here ("could not make the submission's
    # cgroup"); now memory and pids alone, and the documented bound: descriptors times processes.
    venv = request.getfixturevalue("readable_venv")
    proc = subprocess.run(
        [SETPRIV, "--bounding-set", "-sys_admin", str(venv / "venv/bin/python"), "-c", host_attacks.SCRIPT]
        + [str(venv / "no-cap-ptys"), "ptys"],
        capture_output=True,
        text=True,
        timeout=120,
        env={**os.environ, "GRADER_NO_BWRAP": "1"},
        cwd=venv,
    )
    assert proc.returncode == 0, proc.stderr[-3000:]
    found = host_attacks.parse(proc.stdout)
    assert found["value"]["opened"] == host_attacks.PTYS, found
    describe = found["describe"]
    assert "host's ptys (unshare(CLONE_NEWNS): Operation not permitted)" in describe, describe
    assert f"per submission by {HIERARCHY.kind}" in describe and "ptys denied" not in describe, describe


PROBE = """
import os, sys
sys.stdin.readline()  # once the test has moved this process into the cgroup
for path in ("/dev/ptmx", "/dev/pts/ptmx", "/dev/tty", "/dev/null"):
    try:
        os.close(os.open(path, os.O_RDWR | os.O_NOCTTY))
        print(path, "opened")
    except OSError as exc:
        print(path, errno.errorcode[exc.errno])
"""


@pytest.mark.skipif(HIERARCHY is None or not HIERARCHY.denies_ptys, reason="no cgroup v1 devices hierarchy here")
def test_a_submissions_v1_cgroup_refuses_every_ptmx_and_goes_with_it():
    # The devices controller alone, without the zygote's mount namespace, for a process of the grader's own
    # user (root here: no file mode stops it).
    parent = f"grader-test-{os.getpid()}"
    group = cgroups.SubmissionCgroup(HIERARCHY, f"{parent}/s1", cgroups.memory_bound(256), 8)
    try:
        probe = subprocess.Popen(
            [sys.executable, "-c", "import errno" + PROBE], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True
        )
        group.add([probe.pid])
        seen, _ = probe.communicate("moved\n", timeout=30)
    finally:
        assert group.remove()
        cgroups.remove_parent(HIERARCHY, parent)
    assert seen.splitlines() == [f"{path} EPERM" for path in ("/dev/ptmx", "/dev/pts/ptmx", "/dev/tty")] + [
        "/dev/null opened"
    ], seen
    assert not any(directory.exists() for directory in group.dirs)
    # The launcher's level too, in every hierarchy (the devices one was left behind once).
    assert not any((top / parent).exists() for top in HIERARCHY.parents + HIERARCHY.devices_parents)


@pytest.mark.parametrize("run", FILTERED, indirect=True)
def test_a_submission_cannot_allocate_disk_past_its_file_size_limit(run):
    # Before: fallocate(KEEP_SIZE) and the space-reservation ioctls held the whole 64 MiB asked of the
    # capture file (the review: 2 GiB) under a 16 MiB RLIMIT_FSIZE, in every mode.
    found = run("disk")
    assert "value" in found, found
    seen = found["value"]
    held = {name: blocks for name, (_, blocks) in seen.items() if blocks > LIMIT}
    assert not held, f"past the {LIMIT >> 20} MiB limit: {held}; {found}"
    assert found["capture_blocks"] <= LIMIT, found
    assert seen.pop("posix_fallocate within the limit") == ["ok", 1 << 20], seen  # mode 0: what glibc asks
    for name, (answer, _) in seen.items():
        if name.startswith("fallocate("):
            assert answer == errno.errorcode[errno.EOPNOTSUPP], (name, seen)  # the filter: mode 0 only
        elif name.startswith("ioctl("):
            assert answer == "ENOTTY", (name, seen)  # the filter: no request of the 'X' family
        else:
            assert answer == "EFBIG", (name, seen)  # the kernel's own check of RLIMIT_FSIZE
