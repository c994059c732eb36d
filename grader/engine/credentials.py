"""``grader cluster-credentials DIR``: the mutual-TLS credentials of one course's Dask cluster.

A certificate authority made for this course alone, and one member certificate it signs,
for the scheduler, the workers and the client (``ca.pem``, ``member.pem``,
``member-key.pem``). Dask's TLS requires every peer to present a certificate signed by
that authority: a machine without these files cannot join the cluster nor receive
anything from it, and one holding another course's credentials (another authority)
cannot either. Made with ``openssl`` (a new key each time; nothing is reused).
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
from pathlib import Path

from grader.core.course import load_course
from grader.display import visible
from grader.errors import GraderError

DAYS = 400


def _openssl(*args: str, cwd: Path) -> None:
    openssl = shutil.which("openssl")
    if openssl is None:
        raise GraderError("making cluster credentials needs the openssl command (apt-get install openssl)")
    proc = subprocess.run([openssl, *args], cwd=cwd, capture_output=True, text=True, timeout=120)
    if proc.returncode != 0:
        raise GraderError(f"openssl {args[0]} failed: {proc.stderr.strip()[-500:]}")


def make_credentials(dest: Path, course_id: str) -> Path:
    """Write ca.pem, member.pem and member-key.pem (mode 0600) into the new folder ``dest``."""
    dest = Path(dest)
    dest.mkdir(parents=True, mode=0o700, exist_ok=False)
    name = "".join(c if c.isalnum() or c in "-_." else "-" for c in course_id)[:40] or "course"
    _openssl(
        "req",
        "-x509",
        "-newkey",
        "ec",
        "-pkeyopt",
        "ec_paramgen_curve:prime256v1",
        "-nodes",
        "-keyout",
        "ca-key.pem",
        "-out",
        "ca.pem",
        "-days",
        str(DAYS),
        "-subj",
        f"/CN=grader {name} cluster CA",
        "-addext",
        "basicConstraints=critical,CA:TRUE",
        "-addext",
        "keyUsage=critical,keyCertSign,cRLSign",
        cwd=dest,
    )
    _openssl(
        "req",
        "-newkey",
        "ec",
        "-pkeyopt",
        "ec_paramgen_curve:prime256v1",
        "-nodes",
        "-keyout",
        "member-key.pem",
        "-out",
        "member.csr",
        "-subj",
        f"/CN=grader {name} cluster member",
        cwd=dest,
    )
    (dest / "member.ext").write_text(
        "basicConstraints=CA:FALSE\nextendedKeyUsage=serverAuth,clientAuth\nsubjectAltName=DNS:localhost,IP:127.0.0.1\n"
    )
    _openssl(
        "x509",
        "-req",
        "-in",
        "member.csr",
        "-CA",
        "ca.pem",
        "-CAkey",
        "ca-key.pem",
        "-CAcreateserial",
        "-out",
        "member.pem",
        "-days",
        str(DAYS),
        "-extfile",
        "member.ext",
        cwd=dest,
    )
    for leftover in ("member.csr", "member.ext", "ca.srl"):
        (dest / leftover).unlink(missing_ok=True)
    # The authority's key signs nothing more: whoever holds it could make members.
    (dest / "ca-key.pem").unlink()
    for path in dest.iterdir():
        os.chmod(path, 0o600)
    return dest


def register(sub, common) -> None:
    parser = sub.add_parser(
        "cluster-credentials",
        parents=[common],
        help="make the mutual-TLS credentials of this course's Dask cluster",
        description="Write a new certificate authority of this course and one member certificate into DIR "
        "(ca.pem, member.pem, member-key.pem). Give DIR to the scheduler, every worker and "
        "the grader (GRADER_CLUSTER_CREDENTIALS=DIR) and use a tls:// scheduler address: only "
        "machines holding it can join. See docs/cluster.md.",
    )
    parser.add_argument("dest", metavar="DIR", help="a new folder for the credentials")
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    course = load_course(args.course)
    dest = make_credentials(Path(args.dest), course.id)
    print(f"wrote {visible(dest)}/ca.pem, member.pem, member-key.pem (keep them private; mode 0600)")
    return 0
