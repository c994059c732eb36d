"""The lab notebook runs headless from its jupytext source on the smoke profile.

Its cells check themselves with ``assert``; any failing cell fails this test. Its PPO runs (the
whole smoke budget, the lab's seeds) must also balance the pole: a cell added at the end
evaluates them greedily (tests/test_ppo_training.py checks the graded runs the same way).
"""

from __future__ import annotations

import os

import pytest

from tests.helpers import ROOT

NOTEBOOK = ROOT / "notebooks" / "lab4_policy_gradients.py"
# Appended to the notebook: the greedy return of each of its PPO runs, 20 episodes, as
# tests/test_ppo_training.py evaluates the graded runs (evaluation does not change training).
EVALUATE_RUNS = """
from ppo_training import evaluate_policy
means = [float(evaluate_policy(run["parameters"], episodes=20, seed=5_000 + seed).mean())
         for seed, run in zip(SEEDS, runs)]
print("smoke runs evaluated:", float(np.median(means)), means)
"""


@pytest.mark.slow
def test_lab_notebook_executes_on_the_smoke_profile(tmp_path, monkeypatch):
    jupytext = pytest.importorskip("jupytext")
    nbclient = pytest.importorskip("nbclient")
    nbformat = pytest.importorskip("nbformat")
    pytest.importorskip("ipykernel")
    notebook = jupytext.read(NOTEBOOK)
    assert [c.cell_type for c in notebook.cells].count("code") >= 8
    notebook.cells.append(nbformat.v4.new_code_cell(EVALUATE_RUNS))
    # The kernel inherits the environment: the reference solutions stand in for a student's modules.
    monkeypatch.setenv("RL_LLM_M4_PROFILE", "smoke")
    monkeypatch.setenv("RL_LLM_M4_CODE", str(ROOT / "solutions"))
    monkeypatch.delenv("MPLBACKEND", raising=False)  # the kernel's inline backend keeps the figures
    for var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
        monkeypatch.setenv(var, "1")
    client = nbclient.NotebookClient(
        notebook, timeout=900, kernel_name="python3", resources={"metadata": {"path": str(tmp_path)}}
    )
    client.execute()  # raises CellExecutionError, with the cell and its traceback, when a cell fails
    text = "\n".join(
        o.get("text", "")
        for c in notebook.cells
        if c.cell_type == "code"
        for o in c.get("outputs", [])
        if o.get("output_type") == "stream"
    )
    assert "profile: smoke" in text and os.fspath(ROOT / "solutions") in text
    figures = [
        o
        for c in notebook.cells
        if c.cell_type == "code"
        for o in c.get("outputs", [])
        if o.get("output_type") == "display_data" and "image/png" in o.get("data", {})
    ]
    assert len(figures) >= 4  # baselines, PPO curves, PPO diagnostics, the sequence run
    # The notebook's runs (the whole smoke budget) end with a median greedy return of at least 475.
    [evaluated] = [line for line in text.splitlines() if line.startswith("smoke runs evaluated:")]
    assert float(evaluated.split()[3]) >= 475, evaluated
