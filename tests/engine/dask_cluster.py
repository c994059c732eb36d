"""A real Dask cluster on 127.0.0.1 for the tests and the benchmark: a `dask scheduler` and
`dask worker` processes, each a separate process in a scratch directory of its own."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import distributed
import distributed.security

BIN = Path(sys.executable).parent


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def tls_options(credentials: Path | None) -> list[str]:
    if not credentials:
        return []
    return [
        "--tls-ca-file",
        str(credentials / "ca.pem"),
        "--tls-cert",
        str(credentials / "member.pem"),
        "--tls-key",
        str(credentials / "member-key.pem"),
    ]


class Cluster:
    """A scheduler and workers, each a separate process with a scratch directory of its own."""

    def __init__(self, base: Path, credentials: Path | None = None):
        """``credentials``: a folder of ``grader cluster-credentials``: mutual TLS (tls://)."""
        self.base = base
        self.credentials = credentials
        scheme = "tls" if credentials else "tcp"
        self.address = f"{scheme}://127.0.0.1:{free_port()}"
        self.processes: dict[str, subprocess.Popen] = {}
        self._start(
            "scheduler",
            [
                str(BIN / "dask"),
                "scheduler",
                "--host",
                "127.0.0.1",
                "--port",
                self.address.rsplit(":", 1)[1],
                "--no-dashboard",
                "--protocol",
                scheme,
                *tls_options(credentials),
            ],
        )
        security = None
        if credentials:
            security = distributed.security.Security(
                tls_ca_file=str(credentials / "ca.pem"),
                tls_client_cert=str(credentials / "member.pem"),
                tls_client_key=str(credentials / "member-key.pem"),
                require_encryption=True,
            )
        self.client = distributed.Client(self.address, timeout=60, set_as_default=False, security=security)

    def _start(self, name: str, argv: list[str], env: dict | None = None) -> subprocess.Popen:
        scratch = self.base / name
        scratch.mkdir(parents=True)
        log = open(scratch / "log", "wb")
        self.processes[name] = subprocess.Popen(
            argv,
            cwd=scratch,
            stdout=log,
            stderr=subprocess.STDOUT,
            env=dict(os.environ, **(env or {})),
            start_new_session=True,
        )
        return self.processes[name]

    def add_worker(
        self, name: str, env: dict | None = None, credentials: Path | None | bool = True, wait: float = 60
    ) -> str:
        """Start a worker (one thread, no nanny: killed means gone); its address. ``credentials``:
        True for the cluster's own, or another folder, or None for none."""
        before = set(self.client.nthreads())
        credentials = self.credentials if credentials is True else credentials
        self._start(
            name,
            [
                str(BIN / "dask"),
                "worker",
                self.address,
                "--nthreads",
                "1",
                "--no-nanny",
                "--no-dashboard",
                "--local-directory",
                str(self.base / name / "local"),
                *tls_options(credentials),
            ],
            env,
        )
        deadline = time.monotonic() + wait
        while time.monotonic() < deadline:
            new = set(self.client.nthreads()) - before
            if new:
                return new.pop()
            time.sleep(0.2)
        raise AssertionError(f"worker {name} did not join:\n" + (self.base / name / "log").read_text()[-2000:])

    def kill(self, name: str) -> None:
        process = self.processes.pop(name)
        os.killpg(process.pid, signal.SIGKILL)
        process.wait()

    def close(self) -> None:
        self.client.close()
        for name in list(self.processes):
            self.kill(name)
