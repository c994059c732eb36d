"""Files and names a student controls, handled as hostile data.

Every path a submission provides may be a link (to ``solutions/``, to the hidden
tests, to ``/etc``), a FIFO that blocks a reader forever, a device, a file of
gigabytes or a name that is not text. The helpers here never follow a link,
never open anything but a regular file, bound what they read, and turn any
name into printable text for messages.
"""

from __future__ import annotations

import errno
import os
import stat
from pathlib import Path

from grader.errors import GraderError

MAX_SUBMISSION_BYTES = 256 << 20  # a submission folder's files, all together
MAX_WALK_ENTRIES = 10_000  # files and folders of one submission that are looked at
SHOWN_CHARS = 80


class UntrustedFile(GraderError):
    """A student's file that is not read: a link, not a regular file, or too large."""


def shown(name: str | bytes | os.PathLike, limit: int = SHOWN_CHARS) -> str:
    """``name`` as printable text for a message: undecodable bytes and control characters
    escaped (``\\xe9``), at most ``limit`` characters. Never raises."""
    raw = os.fsencode(name) if not isinstance(name, bytes) else name
    text = raw.decode("utf-8", "backslashreplace")
    text = "".join(c if c.isprintable() else ascii(c)[1:-1] for c in text)
    return text if len(text) <= limit else text[: limit - 3] + "..."


def valid_text(value: str) -> str:
    """``value`` as text any encoder takes: a lone surrogate (JSON may hold ``\\udce9``) becomes U+FFFD."""
    return value.encode("utf-8", "surrogatepass").decode("utf-8", "replace")


def kind_of(mode: int) -> str:
    if stat.S_ISLNK(mode):
        return "a symbolic link"
    if stat.S_ISFIFO(mode):
        return "a named pipe"
    if stat.S_ISSOCK(mode):
        return "a socket"
    if stat.S_ISCHR(mode) or stat.S_ISBLK(mode):
        return "a device"
    if stat.S_ISDIR(mode):
        return "a folder"
    return "a file" if stat.S_ISREG(mode) else "not a file"


def linked_part(path: Path, root: Path) -> Path | None:
    """The first of ``root``'s descendants on the way to ``path`` (``path`` included) that is a
    symbolic link, or None. ``root`` itself is trusted (the instructor chose it)."""
    path, root = Path(path), Path(root)
    current = root
    for part in path.relative_to(root).parts:
        current = current / part
        if current.is_symlink():
            return current
    return None


def refused_entries(
    folder: Path, limit: int = MAX_WALK_ENTRIES, max_bytes: int | None = None
) -> list[tuple[Path, str]]:
    """(path, what it is) of every entry at or under ``folder`` that is neither a regular
    file nor a folder: links (never followed, at any depth), pipes, sockets, devices.

    A folder with more than ``limit`` entries, or whose files hold more than ``max_bytes``
    (their apparent size: a sparse file is copied whole), is refused as a whole (its own
    path, with the reason).
    """
    folder = Path(folder)
    try:
        mode = os.lstat(folder).st_mode
    except OSError as exc:
        return [(folder, f"unreadable ({exc.strerror})")]
    if not stat.S_ISDIR(mode):
        return [] if stat.S_ISREG(mode) else [(folder, kind_of(mode))]
    found: list[tuple[Path, str]] = []
    seen = size = 0
    for parent, dirs, files in os.walk(folder):  # never enters a linked folder
        for name in sorted(dirs + files):
            seen += 1
            if seen > limit:
                return found + [(folder, f"more than {limit} files and folders")]
            path = Path(parent) / name
            try:
                info = os.lstat(path)
            except OSError as exc:
                found.append((path, f"unreadable ({exc.strerror})"))
                continue
            if stat.S_ISREG(info.st_mode):
                size += info.st_size
            elif not stat.S_ISDIR(info.st_mode):
                found.append((path, kind_of(info.st_mode)))
    if max_bytes is not None and size > max_bytes:
        found.append((folder, f"more than {max_bytes >> 20} MB of files"))
    return found


def read_regular(path: Path, limit: int) -> bytes:
    """The bytes of the regular file ``path``, opened without following a link and without
    blocking (a FIFO is refused, not waited on).

    Raises
    ------
    UntrustedFile
        When ``path`` is a link or not a regular file, or holds more than ``limit`` bytes.
    FileNotFoundError
        When it does not exist.
    """
    flags = os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0)
    try:
        fd = os.open(path, flags)
    except OSError as exc:
        if exc.errno == errno.ELOOP:  # O_NOFOLLOW: the last part is a link
            raise UntrustedFile(f"{shown(Path(path).name)} is a symbolic link") from None
        raise
    try:
        mode = os.fstat(fd)
        if not stat.S_ISREG(mode.st_mode):
            raise UntrustedFile(f"{shown(Path(path).name)} is {kind_of(mode.st_mode)}, not a file")
        if mode.st_size > limit:
            raise UntrustedFile(
                f"{shown(Path(path).name)} is {mode.st_size / 2**20:.1f} MB, more than the {limit / 2**20:g} MB allowed"
            )
        chunks, size = [], 0
        while True:
            # The size fstat gave in one read, then 1 MB at a time while the file grows: a file read in
            # chunks is held twice while they are joined (a 63 MB notebook cost 127 MB to read).
            chunk = os.read(fd, min(mode.st_size + 1 if not chunks else 1 << 20, limit + 1 - size))
            if not chunk:
                break
            chunks.append(chunk)
            size += len(chunk)
            if size > limit:  # grew while being read
                raise UntrustedFile(f"{shown(Path(path).name)} is more than the {limit / 2**20:g} MB allowed")
        return chunks[0] if len(chunks) == 1 else b"".join(chunks)
    finally:
        os.close(fd)
