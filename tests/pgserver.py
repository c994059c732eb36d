"""A throwaway PostgreSQL server for the tests: ``initdb`` and ``pg_ctl`` in a temporary directory.

The server runs as an unprivileged user (initdb refuses root: when the tests run as
root, the server runs as the ``postgres`` system user, else ``nobody``), listens on
127.0.0.1 only, on a free port, and asks for a password (SCRAM), so that URLs in the
tests carry one, as a teaching team's would.
"""

from __future__ import annotations

import glob
import os
import pwd
import re
import secrets
import shutil
import socket
import subprocess
import tempfile
from pathlib import Path

SERVER_TOOLS = ("initdb", "pg_ctl", "postgres")
USER = "grader"


def _version_key(path: str) -> tuple:
    return tuple(int(n) for n in re.findall(r"\d+", path))


def server_bindir() -> Path | None:
    """A folder holding PostgreSQL's server programs, or None where there is none.

    Looked for on PATH, where ``pg_config --bindir`` says, then in the usual places of
    Debian/Ubuntu (``/usr/lib/postgresql/<version>/bin``), Red Hat (``/usr/pgsql-<version>/bin``)
    and source or Homebrew installs; the newest version first.
    """
    candidates = []
    found = shutil.which("initdb")
    if found:
        candidates.append(Path(found).resolve().parent)
    pg_config = shutil.which("pg_config")
    if pg_config:
        try:
            out = subprocess.run([pg_config, "--bindir"], capture_output=True, text=True, timeout=10)
            candidates.append(Path(out.stdout.strip()))
        except (OSError, subprocess.SubprocessError):
            pass
    for pattern in (
        "/usr/lib/postgresql/*/bin",
        "/usr/pgsql-*/bin",
        "/usr/local/pgsql/bin",
        "/opt/homebrew/opt/postgresql*/bin",
        "/usr/local/opt/postgresql*/bin",
    ):
        candidates += [Path(p) for p in sorted(glob.glob(pattern), key=_version_key, reverse=True)]
    for folder in candidates:
        if all(os.access(folder / tool, os.X_OK) for tool in SERVER_TOOLS):
            return folder
    return None


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


class PostgresServer:
    """One server: :meth:`start`, :meth:`create_database`, :meth:`url`, :meth:`stop`."""

    def __init__(self, bindir: Path):
        self.bindir = Path(bindir)
        self.password = secrets.token_urlsafe(12)
        self.port = 0
        self.folder: Path | None = None
        self._as_user: dict = {}

    def _unprivileged(self) -> dict:
        """subprocess arguments that run a program as an unprivileged user (when we are root)."""
        if os.geteuid() != 0:
            return {}
        for name in ("postgres", "nobody"):
            try:
                entry = pwd.getpwnam(name)
            except KeyError:
                continue
            return {"user": entry.pw_uid, "group": entry.pw_gid, "extra_groups": []}
        raise RuntimeError("no unprivileged user (postgres or nobody) to run PostgreSQL as")

    def _run(self, *args: str, timeout: float = 120) -> subprocess.CompletedProcess:
        env = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "LC_ALL": "C", "LANG": "C"}
        proc = subprocess.run(
            [str(self.bindir / args[0]), *args[1:]],
            cwd=self.folder,
            env=env,
            capture_output=True,
            text=True,
            timeout=timeout,
            **self._as_user,
        )
        if proc.returncode != 0:
            log = self.folder / "server.log"
            tail = log.read_text(errors="replace")[-2000:] if log.is_file() else ""
            raise RuntimeError(f"{args[0]} failed ({proc.returncode}):\n{proc.stdout}\n{proc.stderr}\n{tail}")
        return proc

    def start(self) -> "PostgresServer":
        self._as_user = self._unprivileged()
        self.folder = Path(tempfile.mkdtemp(prefix="grader-postgres-"))
        if self._as_user:
            os.chown(self.folder, self._as_user["user"], self._as_user["group"])
        password_file = self.folder / "password"
        password_file.write_text(self.password + "\n")
        password_file.chmod(0o600)
        if self._as_user:
            os.chown(password_file, self._as_user["user"], self._as_user["group"])
        self._run(
            "initdb",
            "-D",
            str(self.folder / "data"),
            "-U",
            USER,
            "--auth=scram-sha-256",
            f"--pwfile={password_file}",
            "--encoding=UTF8",
            "--locale=C",
        )
        password_file.unlink()
        for attempt in range(3):  # another process may take the free port before the server does
            self.port = _free_port()
            options = (
                f"-c listen_addresses=127.0.0.1 -p {self.port} -c unix_socket_directories={self.folder} "
                "-c fsync=off -c synchronous_commit=off -c full_page_writes=off"
            )
            try:
                self._run(
                    "pg_ctl",
                    "-D",
                    str(self.folder / "data"),
                    "-l",
                    str(self.folder / "server.log"),
                    "-w",
                    "-t",
                    "60",
                    "-o",
                    options,
                    "start",
                )
                return self
            except RuntimeError:
                if attempt == 2:
                    raise
        return self

    def url(self, database: str, *, password: bool = True) -> str:
        secret = f":{self.password}" if password else ""
        return f"postgresql://{USER}{secret}@127.0.0.1:{self.port}/{database}"

    def create_database(self, name: str) -> str:
        """Create database ``name``; return its URL (with the password)."""
        import psycopg

        with psycopg.connect(self.url("postgres"), autocommit=True) as connection:
            connection.execute(f'CREATE DATABASE "{name}"')
        return self.url(name)

    def stop(self) -> None:
        if self.folder is None:
            return
        try:
            if (self.folder / "data" / "postmaster.pid").exists():
                self._run("pg_ctl", "-D", str(self.folder / "data"), "-m", "immediate", "-w", "stop")
        finally:
            shutil.rmtree(self.folder, ignore_errors=True)
            self.folder = None
