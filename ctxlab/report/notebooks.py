"""Execute the numbered notebooks against a database with papermill and export them to HTML.

    from ctxlab.report.notebooks import run_notebooks
    run_notebooks("ctxlab.duckdb", "reports/", run="demo-final")

The notebooks live in the repository's ``notebooks/`` folder (next to the package in a source
checkout); each has a cell tagged ``parameters`` taking ``db``, ``run`` and ``dataset``.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any, NamedTuple

from ctxlab.errors import CtxlabError

NOTEBOOKS = ("01_strategy_comparison.ipynb", "02_estimator_error.ipynb", "03_summary_quality.ipynb",
             "04_agent_tuning.ipynb")
# Each notebook runs in its own kernel process; two at a time use both cores of a small machine.
PARALLEL = 2


class Executed(NamedTuple):
    """One executed notebook: the filled-in copy and its HTML export."""

    notebook: Path
    html: Path


def notebook_dir() -> Path:
    """The ``notebooks/`` folder of the source checkout ctxlab runs from."""
    folder = Path(__file__).resolve().parents[2] / "notebooks"
    if not (folder / NOTEBOOKS[0]).exists():
        raise CtxlabError(f"the notebooks are not next to this ctxlab installation (looked in {folder}); "
                          "run from a source checkout or pass --no-notebooks")
    return folder


def execute(source: Path, out_dir: Path, parameters: Mapping[str, Any], *, timeout: int = 600) -> Executed:
    """Run one notebook top to bottom with `parameters` and export the result to HTML.

    Raises:
        CtxlabError: a cell failed (the message names the notebook and the error).
    """
    import papermill

    out_dir.mkdir(parents=True, exist_ok=True)
    target = out_dir / source.name
    try:
        papermill.execute_notebook(str(source), str(target), parameters=dict(parameters), cwd=str(out_dir),
                                   kernel_name="python3", progress_bar=False, log_output=False,
                                   execution_timeout=timeout, extra_arguments=["--log-level=CRITICAL"])
    except papermill.PapermillExecutionError as exc:
        raise CtxlabError(f"{source.name} failed in cell {exc.exec_count}: {exc.ename}: {exc.evalue} "
                          f"(see {target})") from None
    return Executed(target, export_html(target))


def export_html(notebook: Path) -> Path:
    """The executed notebook as an HTML page beside it."""
    import nbformat
    from nbconvert import HTMLExporter

    body, _ = HTMLExporter().from_notebook_node(nbformat.read(notebook, as_version=4))
    html = notebook.with_suffix(".html")
    html.write_text(body, encoding="utf-8")
    return html


def run_notebooks(db: str | Path, out_dir: str | Path, *, run: str | None = None, dataset: str | None = None,
                  names: Sequence[str] = NOTEBOOKS) -> list[Executed]:
    """Execute the notebooks against `db` (absolute path passed in) into `out_dir`."""
    folder = notebook_dir()
    params = {"db": str(Path(db).resolve()), "run": run, "dataset": dataset}
    out = Path(out_dir)
    with ThreadPoolExecutor(max_workers=PARALLEL) as pool:
        futures = [pool.submit(execute, folder / name, out, params) for name in names]
        return [f.result() for f in futures]
