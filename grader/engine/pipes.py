"""Messages between a grader process and the processes it starts: JSON lines on a pipe of their own.

The local grading processes (:mod:`grader.engine.local`, new interpreters) and ``grader
autograde``'s recording processes (forked, :func:`fork`) talk to their parent this way: one
line per message, read whole whatever the pipe delivers at once, on a pipe apart from stdout
and stderr so that nothing a child prints can break the protocol.
"""

from __future__ import annotations

import json
import os
import selectors
import signal
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import TextIO

Tell = Callable[[dict], None]


class MessageReader:
    """The reading end of a pipe of JSON lines (a file object: it can be registered with a selector)."""

    def __init__(self, fd: int, chunk: int = 1 << 16):
        self.file = os.fdopen(fd, "rb", buffering=0)
        self.chunk = chunk
        self.buffer = b""

    def fileno(self) -> int:
        return self.file.fileno()

    def messages(self) -> list[dict] | None:
        """The complete messages of one read (it blocks: call when the pipe is readable); None at its end."""
        chunk = self.file.read(self.chunk)
        if not chunk:
            return None
        *lines, self.buffer = (self.buffer + chunk).split(b"\n")
        return [json.loads(line) for line in lines if line.strip()]

    def close(self) -> None:
        self.file.close()


def teller(stream: TextIO) -> Tell:
    """``tell(message)``: one JSON line on ``stream``, flushed at once."""

    def tell(message: dict) -> None:
        stream.write(json.dumps(message) + "\n")
        stream.flush()

    return tell


@dataclass(eq=False)
class Child:
    """A forked process and the pipe it tells its parent on."""

    pid: int
    pipe: MessageReader

    def end(self) -> int:
        """Close the pipe, kill the process if it is still there (interrupted) and collect its exit status."""
        self.pipe.close()
        try:
            os.kill(self.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
        return os.waitstatus_to_exitcode(os.waitpid(self.pid, 0)[1])


def fork(work: Callable[[Tell], int]) -> Child:
    """A forked process running ``work(tell)``, with the state of this one: it exits with what ``work``
    returns (1 if it raises) and never returns into the caller's code.

    Fork before any thread starts (a progress bar's, say): the child holds no lock of another thread.
    """
    read, write = os.pipe()
    pid = os.fork()
    if pid == 0:  # pragma: no cover - runs in the child
        code = 1
        try:
            os.close(read)
            with os.fdopen(write, "w", encoding="utf-8") as out:
                code = work(teller(out))
        finally:
            os._exit(code)
    os.close(write)
    return Child(pid, MessageReader(read))


def follow(children: Iterable[Child], handle: Callable[[Child, dict], None]) -> None:
    """Hand every message of ``children`` to ``handle`` as it comes, until each has closed its pipe."""
    with selectors.DefaultSelector() as selector:
        for child in children:
            selector.register(child.pipe, selectors.EVENT_READ, child)
        while selector.get_map():
            for key, _ in selector.select():
                messages = key.data.pipe.messages()
                if messages is None:
                    selector.unregister(key.fileobj)
                    continue
                for message in messages:
                    handle(key.data, message)
