"""cgroup v2 passes the controllers down to the submission's cgroup (this machine has v1: a plain directory stands in).

v2 gives a child only the controllers its parent lists in ``cgroup.subtree_control``: the submission's
cgroup sits two levels below the delegated one (``grader-<pid>/s<n>``), so the level between must enable
memory and pids (and cpu when it is weighed) or the submission's ``memory.max`` never exists.
"""

from __future__ import annotations

import dataclasses

from grader.sandbox.cgroups import Hierarchy, SubmissionCgroup


def test_the_level_between_enables_the_controllers_for_the_submission(tmp_path):
    SubmissionCgroup(Hierarchy("cgroup v2", (tmp_path,)), "grader-1/s1", 64 << 20, 16)
    assert (tmp_path / "grader-1" / "cgroup.subtree_control").read_text().split() == ["+memory", "+pids"]
    assert (tmp_path / "grader-1" / "s1" / "memory.max").read_text() == str(64 << 20)
    assert (tmp_path / "grader-1" / "s1" / "pids.max").read_text() == "16"


def test_with_the_cpu_weighed_the_level_between_enables_cpu_too(tmp_path):
    hierarchy = dataclasses.replace(Hierarchy("cgroup v2", (tmp_path,)), cpu=tmp_path)
    SubmissionCgroup(hierarchy, "grader-2/s1", 64 << 20, 16)
    assert "+cpu" in (tmp_path / "grader-2" / "cgroup.subtree_control").read_text().split()
