"""The zygote never holds a student's bytes (issue 22, item 1).

Every worker is a fork of the zygote: whatever the zygote once decoded may stay in the
heap every later worker inherits (a student's recorded message quoted an earlier
student's file). So no byte of a submission is ever sent to the zygote: the files go
in a file whose descriptor only the forked worker reads.
"""

from __future__ import annotations

import base64
import json

from grader.sandbox import SandboxLauncher
from grader.sandbox import launcher as launcher_module
from grader.sandbox.limits import Limits
from grader.worker import runtime
from grader.worker.client import WorkerProcess
from tests.sandbox.common import needs_bwrap

MARKER = "SECRET-OF-ALICE-" + "q7Zx" * 8


@needs_bwrap
def test_no_byte_of_a_submission_reaches_the_zygote(tmp_path, monkeypatch):
    sent = []
    call = launcher_module._Zygote.call

    def spy(self, message, fds=(), **kwargs):
        sent.append(json.dumps(message))
        return call(self, message, fds, **kwargs)

    monkeypatch.setattr(launcher_module._Zygote, "call", spy)
    (tmp_path / "alice.py").write_text(f'def answer():\n    return "{MARKER}"\n')
    with SandboxLauncher(Limits(memory_mb=512), sandbox="require") as launcher:
        worker = WorkerProcess(tmp_path, launcher)
        worker.start()
        try:
            reply = worker.request(
                {
                    "op": "call",
                    "module": "alice",
                    "function": "answer",
                    "args": runtime.encode([]),
                    "kwargs": runtime.encode({}),
                },
                timeout=30,
            )
        finally:
            worker.kill()
    assert runtime.decode(reply["value"]) == MARKER  # the worker did get the files
    source = (tmp_path / "alice.py").read_bytes()
    forms = [MARKER, base64.b64encode(source).decode(), base64.b64encode(source[1:]).decode()[4:40]]
    assert sent and not [m for m in sent for form in forms if form in m]
