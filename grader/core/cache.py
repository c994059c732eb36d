"""The grader's cache: what grading can make again, kept on disk between processes.

Three kinds of entries, each plain JSON (the wire format of :mod:`grader.worker.runtime` for
values: nothing is ever pickled), each written atomically (a reader sees a whole entry or none):

- ``cases``: the inputs a property test draws (:func:`grader.testing.given`);
- ``labs``: the record of a lab's reference training (:mod:`grader.core.labreplay`);
- ``traces``: the reference's and the stubs' runs of the hidden tests (:mod:`grader.core.replay`).

An entry's key names its kind, the kind's format version (:data:`FORMATS`: bumped when the form
of an entry changes, so that an old entry is never read as a new one) and everything its content
depends on (the caller's key: a test's source, the course fingerprint, a lab's seed ...). An entry
that cannot be read is made again: the cache only saves time.

The directory is the process's, set once by the command line (``--cache``, or the documented
default ``$GRADER_CASES_CACHE``: see docs/architecture.md, "Settings"): :func:`configure`.
"""

from __future__ import annotations

import hashlib
import json
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any

# Each kind of entry and the version of its form: an entry of another version is never read.
FORMATS = {"cases": 1, "labs": 2, "traces": 3}
DEFAULT_DIRECTORY = Path.home() / ".cache" / "rl-llm-m4-grader"


@dataclass(frozen=True)
class GraderCache:
    """A cache directory (None: nothing is kept on disk)."""

    directory: Path | None

    def entry(self, kind: str, name: str, *key: object) -> Path | None:
        """Where the entry of ``kind`` named ``name`` (for people) with ``key`` is kept; None: no cache."""
        if self.directory is None:
            return None
        digest = hashlib.sha256(f"{kind}\0{FORMATS[kind]}".encode())
        for part in key:
            digest.update(b"\0")
            digest.update(part if isinstance(part, bytes) else str(part).encode())
        safe = "".join(c for c in name if c.isalnum() or c in "_-")[:80]
        return self.directory / kind / f"{safe}-{digest.hexdigest()[:24]}.json"

    @staticmethod
    def read(path: Path | None) -> Any:
        """The JSON of the entry at ``path``; None when there is none, or it cannot be read."""
        if path is None:
            return None
        try:
            return json.loads(path.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return None

    @staticmethod
    def write(path: Path | None, data: Any) -> bool:
        """Write the JSON of ``data`` at ``path`` atomically; False when it cannot be (or no cache)."""
        if path is None:
            return False
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            partial = path.with_suffix(f".{os.getpid()}.tmp")
            partial.write_text(json.dumps(data), encoding="utf-8")
            os.replace(partial, path)
            return True
        except (OSError, TypeError, ValueError):
            return False


_CURRENT = GraderCache(DEFAULT_DIRECTORY)


def configure(directory: Path | None) -> GraderCache:
    """Use ``directory`` (None: no cache on disk) for this process's entries from now on; the command
    line calls this once, with its ``--cache`` setting."""
    global _CURRENT
    _CURRENT = GraderCache(Path(directory) if directory is not None else None)
    return _CURRENT


def current() -> GraderCache:
    """This process's cache (:func:`configure`; by default ``~/.cache/rl-llm-m4-grader``)."""
    return _CURRENT
