"""Notebook 05 runs top to bottom (no database, no network) and is committed clean."""

from __future__ import annotations

from pathlib import Path

import nbformat

from ctxlab.report.notebooks import execute

NOTEBOOK = Path(__file__).resolve().parents[2] / "notebooks" / "05_in_your_agent.ipynb"


def test_notebook_05_runs(tmp_path: Path) -> None:
    executed = execute(NOTEBOOK, tmp_path, {"policy": "observation_masking", "window": 3000}, timeout=120)
    nb = nbformat.read(executed.notebook, as_version=4)
    outputs = [o for cell in nb.cells if cell.cell_type == "code" for o in cell.outputs]
    assert not [o for o in outputs if o.output_type == "error"]
    assert any("image/png" in o.get("data", {}) for o in outputs), "the calls should be drawn"
    text = executed.notebook.read_text(encoding="utf-8")
    assert "observation_masking.dropped" in text and "the thread keeps 18 messages" in text


def test_notebook_05_is_committed_clean() -> None:
    nb = nbformat.read(NOTEBOOK, as_version=4)
    nbformat.validate(nb)
    code = [c for c in nb.cells if c.cell_type == "code"]
    assert all(not c.outputs and c.execution_count is None for c in code)
    assert [c for c in code if "parameters" in c.metadata.get("tags", [])]
