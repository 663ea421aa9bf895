"""The four notebooks run top to bottom with papermill on the demo database, and are committed clean."""

from __future__ import annotations

from pathlib import Path

import nbformat
import pytest

from ctxlab.report.notebooks import NOTEBOOKS, execute, notebook_dir

FOLDER = Path(__file__).resolve().parents[2] / "notebooks"


@pytest.mark.parametrize("name", NOTEBOOKS)
def test_notebook_executes(name: str, demo_db: Path, tmp_path: Path):
    params = {"db": str(demo_db), "run": None, "dataset": None}
    if name.startswith("04"):
        params |= {"policy": "codex", "settings": {"model_auto_compact_token_limit": 4000}}
    executed = execute(notebook_dir() / name, tmp_path, params, timeout=120)
    nb = nbformat.read(executed.notebook, as_version=4)
    outputs = [o for cell in nb.cells if cell.cell_type == "code" for o in cell.outputs]
    assert not [o for o in outputs if o.output_type == "error"]
    images = [o for o in outputs if "image/png" in o.get("data", {})]
    assert len(images) >= 2, "the notebook should show its figures"
    assert executed.html.read_text(encoding="utf-8").startswith("<!DOCTYPE html>")


def test_notebook_for_one_dataset(demo_db: Path, tmp_path: Path):
    executed = execute(notebook_dir() / NOTEBOOKS[0], tmp_path, {"db": str(demo_db), "dataset": "chats"}, timeout=120)
    text = executed.notebook.read_text(encoding="utf-8")
    assert "datasets ['chats']" in text


@pytest.mark.parametrize("name", NOTEBOOKS)
def test_notebooks_are_committed_clean(name: str):
    nb = nbformat.read(FOLDER / name, as_version=4)
    nbformat.validate(nb)
    code = [c for c in nb.cells if c.cell_type == "code"]
    assert all(not c.outputs and c.execution_count is None for c in code), "commit notebooks without outputs"
    tagged = [c for c in code if "parameters" in c.metadata.get("tags", [])]
    assert len(tagged) == 1
    for param in ("db", "run", "dataset"):
        assert f"\n{param} = " in "\n" + tagged[0].source
    if name.startswith("04"):
        for param in ("logs", "policy", "window", "price_model", "settings", "search"):
            assert f"\n{param} = " in tagged[0].source


def test_notebooks_match_their_builder(tmp_path: Path):
    import importlib.util

    spec = importlib.util.spec_from_file_location("build_notebooks", FOLDER / "build_notebooks.py")
    builder = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(builder)
    for built in builder.build(tmp_path):
        committed = nbformat.read(FOLDER / built.name, as_version=4)
        fresh = nbformat.read(built, as_version=4)
        assert [c.source for c in committed.cells] == [c.source for c in fresh.cells], (
            f"{built.name} differs from notebooks/build_notebooks.py: run it and commit the result")


def test_estimator_notebook_shows_the_provider_beside_the_tokenizers(logs_db: Path, tmp_path: Path):  # noqa: F811
    executed = execute(notebook_dir() / "02_estimator_error.ipynb", tmp_path, {"db": str(logs_db)}, timeout=120)
    nb = nbformat.read(executed.notebook, as_version=4)
    cell = next(c for c in nb.cells if "L.reference_matrix(rows, value=" in c.source)
    table = "".join(o["data"]["text/plain"] for o in cell.outputs if "text/plain" in o.get("data", {}))
    assert "o200k_base" in table and "provider:claude-sonnet-4-5" in table and "No provider" not in table
