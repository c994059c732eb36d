"""Every request that runs student code finds its function the same way (grader/worker/runtime.py)."""

from __future__ import annotations

import sys
import uuid

import numpy as np

from grader.worker.runtime import Worker, encode


def test_a_failed_notebook_cell_answers_call_and_map_alike(tmp_path):
    # A notebook cell that failed as it ran costs its exercise: the batched `map` of the lab
    # replay answered with the function anyway, as if the cell had run.
    name = f"cells_{uuid.uuid4().hex}"
    (tmp_path / f"{name}.py").write_text(
        "def double(x):\n    return 2 * x\n\n"
        "__cell_errors__ = {'double': NameError(\"name 'my_ratio' is not defined\")}\n"
    )
    worker = Worker(str(tmp_path))
    try:
        call = worker.call({"module": name, "function": "double", "args": encode([np.ones(3)]), "kwargs": encode({})})
        batch = worker.map(
            {
                "module": name,
                "function": "double",
                "args": encode([np.ones((2, 3))]),
                "rows": [0],
                "count": 2,
                "kwargs": encode({}),
            }
        )
        get = worker.get({"module": name, "name": "double"})
    finally:
        sys.path.remove(str(tmp_path))
        sys.modules.pop(name, None)
    assert call["ok"] is False and call["kind"] == "cell" and "my_ratio" in str(call)
    assert batch["ok"] is False and batch["kind"] == "cell" and "my_ratio" in str(batch)
    assert get["kind"] == "cell"
