"""LMS downloads built the way a determined student would shape their upload (for ``--zip``).

Each builder writes one zip and returns its path; the entries are made with
:mod:`zipfile` so that every field (mode bits, sizes, link flags) is exactly what
the attack needs. A student's own file is ``NOTEBOOK % student``.
"""

from __future__ import annotations

import io
import struct
import zipfile
from pathlib import Path

NOTEBOOK = '{"cells": [], "metadata": {"who": "%s"}, "nbformat": 4, "nbformat_minor": 5}'


def _info(name: str, mode: int = 0o100644, date_time=(2024, 5, 1, 12, 0, 0)) -> zipfile.ZipInfo:
    info = zipfile.ZipInfo(name, date_time=date_time)
    info.create_system = 3  # Unix: the mode bits below are honoured by unzip and by setuptools' unpacker
    info.external_attr = mode << 16
    info.compress_type = zipfile.ZIP_DEFLATED
    return info


def archive(path: Path, entries: dict[str, str | bytes | tuple]) -> Path:
    """A zip of ``name -> text`` (or ``(text, date_time)``)."""
    with zipfile.ZipFile(path, "w") as zf:
        for name, value in entries.items():
            text, date_time = value if isinstance(value, tuple) else (value, (2024, 5, 1, 12, 0, 0))
            zf.writestr(_info(name, date_time=date_time), text)
    return path


def nested_impersonation(path: Path) -> Path:
    """mallory uploads a zip holding ``alice/a1.ipynb`` and ``bob_a1.ipynb``: unpacked, it files
    mallory's notebook as alice's, and its copy of bob's clashes with bob's (a duplicate file
    stopped ``nbgrader zip_collect`` for the whole class)."""
    inner = io.BytesIO()
    with zipfile.ZipFile(inner, "w") as zf:
        zf.writestr(_info("alice/a1.ipynb"), NOTEBOOK % "mallory")
        zf.writestr(_info("bob_a1.ipynb"), NOTEBOOK % "mallory")
    return archive(path, {"alice_a1.ipynb": NOTEBOOK % "alice", "mallory_upload.zip": inner.getvalue()})


def setuid_entry(path: Path) -> Path:
    """A notebook whose entry says setuid-root executable (mode 4755)."""
    with zipfile.ZipFile(path, "w") as zf:
        zf.writestr(_info("mallory_a1.ipynb", mode=0o104755), NOTEBOOK % "mallory")
        zf.writestr(_info("mallory/", mode=0o040777), "")
    return path


def escapes(path: Path) -> Path:
    """Entries that leave their folder: a link, ``..`` (both separators) and absolute names."""
    with zipfile.ZipFile(path, "w") as zf:
        zf.writestr(_info("alice_a1.ipynb"), NOTEBOOK % "alice")
        zf.writestr(_info("mallory_a1.ipynb", mode=0o120777), "../../../../solutions/gae.py")
        zf.writestr(_info("../../escaped.ipynb"), NOTEBOOK % "mallory")
        zf.writestr(_info("..\\..\\escaped.ipynb"), NOTEBOOK % "mallory")
        zf.writestr(_info("/tmp/grader-zip-escaped.ipynb"), NOTEBOOK % "mallory")
    return path


def oversized(path: Path, limit: int) -> Path:
    """One entry just over ``limit`` bytes and one that compresses 1000 to 1 (both zeros: a small zip)."""
    with zipfile.ZipFile(path, "w") as zf:
        zf.writestr(_info("alice_a1.ipynb"), NOTEBOOK % "alice")
        zf.writestr(_info("mallory_a1.ipynb"), b"\0" * (limit + 1))
        zf.writestr(_info("trudy_a1.ipynb"), b" " * (8 * 2**20))
    return path


def lying_size(path: Path) -> Path:
    """An entry whose central directory says 1000 bytes while it holds 2 MB."""
    archive(path, {"alice_a1.ipynb": NOTEBOOK % "alice", "mallory_a1.ipynb": "a" * (2 * 2**20)})
    data = bytearray(path.read_bytes())
    header = data.rfind(b"PK\x01\x02", 0, data.rfind(b"mallory_a1.ipynb"))
    struct.pack_into("<I", data, header + 24, 1000)  # uncompressed size
    path.write_bytes(bytes(data))
    return path
