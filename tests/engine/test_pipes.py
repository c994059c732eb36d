"""The JSON-line pipes between the grader and the processes it starts (:mod:`grader.engine.pipes`)."""

from __future__ import annotations

import os
import time

from grader.engine import pipes


def exited(child: pipes.Child) -> pipes.Child:
    """``child`` once it has exited (not yet collected: :meth:`~grader.engine.pipes.Child.end` does that)."""
    os.waitid(os.P_PID, child.pid, os.WEXITED | os.WNOWAIT)
    return child


def test_forked_children_tell_their_parent_every_message_in_order_and_exit_with_their_status():
    def work(tell, name):
        for i in range(3):
            tell({"from": name, "i": i, "padding": "x" * 70000})  # longer than one read of the pipe
        return 0 if name == "a" else 3

    children = {pipes.fork(lambda tell, name=name: work(tell, name)): name for name in ("a", "b")}
    heard: dict[str, list[int]] = {"a": [], "b": []}
    pipes.follow(children, lambda child, message: heard[children[child]].append(message["i"]))
    assert heard == {"a": [0, 1, 2], "b": [0, 1, 2]}
    assert {name: exited(child).end() for child, name in children.items()} == {"a": 0, "b": 3}


def test_a_child_that_raises_exits_with_1_and_one_still_running_is_ended():
    def fails(tell):
        raise RuntimeError("never returns into the parent's code")

    assert exited(pipes.fork(fails)).end() == 1
    assert pipes.fork(lambda tell: time.sleep(60)).end() == -9  # interrupted: killed, and its status collected
