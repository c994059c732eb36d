"""The host's ptys and disk in every sandbox mode: what a submission can hold that no cgroup charges.

Before (the review, A02): bubblewrap's ``--dev`` gave the sandbox a devpts instance (``ptmxmode=666``);
26 children of one submission held 3,071 ptys, the host's whole pool for new devpts instances (another
bubblewrap sandbox then got ENOSPC), and 200 MiB of kernel memory (Slab, vmalloc) while its cgroup was
charged 59 MiB. (A29) ``fallocate(FALLOC_FL_KEEP_SIZE)`` on the worker's stdout, a file on the host's
disk, held 2 GiB of the host's /tmp under a 16 MiB ``RLIMIT_FSIZE``: the kernel checks that limit only
where a file's size grows. Each test runs in every mode the grader has (:data:`MODES` of
``test_sockets.py``), measured from the host: the ptys' global count, the capture file's blocks.
"""

from __future__ import annotations

import errno
import os
import subprocess

import pytest

from grader.sandbox import seccomp
from tests.sandbox import host_attacks
from tests.sandbox.common import SETUP
from tests.sandbox.test_sockets import FILTERED, HIERARCHY, MODES, NO_CGROUPS, readable_venv  # noqa: F401

LIMIT = host_attacks.FILE_SIZE_MB << 20


@pytest.fixture()
def run(request, tmp_path, monkeypatch):
    """``run(what)``: one attack in the mode of the test's parameter."""
    mode = request.param
    bubblewrap, cgroup, filtered, options, env = MODES[mode]
    if cgroup and HIERARCHY is None:
        pytest.skip(f"no usable cgroup controllers here: {NO_CGROUPS}")
    if bubblewrap and SETUP is None:
        pytest.skip("no working bubblewrap here")
    if filtered and (seccomp.native_arch() is None or (bubblewrap and not SETUP.seccomp)):
        pytest.skip("no seccomp filter here")
    if not bubblewrap and os.geteuid() != 0:
        pytest.skip("without bubblewrap, only root runs student code under the filter")
    for name, value in env.items():
        monkeypatch.setenv(name, value)
    if bubblewrap:
        return lambda what: host_attacks.attack(tmp_path / what, what, **options)
    venv = request.getfixturevalue("readable_venv")

    def in_own_process(what: str) -> dict:
        proc = subprocess.run(
            [str(venv / "venv/bin/python"), "-c", host_attacks.SCRIPT, str(venv / f"{mode}-{what}"), what],
            capture_output=True,
            text=True,
            timeout=120,
            env={**os.environ, **env},
            cwd=venv,
        )
        assert proc.returncode == 0, proc.stderr[-3000:]
        return host_attacks.parse(proc.stdout)

    return in_own_process


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
    else:
        # The host's /dev: the filter cannot tell /dev/ptmx from any file it opens, so ptys open, as many
        # as the submission's processes hold descriptors (docs/class_grading.md, the threat model).
        assert seen["opened"] == host_attacks.PTYS and seen["openpty"] == "opened", found


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
