"""Commands that show results: `report` (notebooks + static HTML) and `dashboard` (Streamlit)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path
from typing import Annotated

import typer

from ctxlab.cli.app import command
from ctxlab.cli.common import Db
from ctxlab.errors import CtxlabError


def _existing_db(db: str | None) -> Path:
    from ctxlab.store import default_db

    path = Path(db or default_db())
    if not path.exists():
        raise CtxlabError(f"no ctxlab database at {path} (run `ctxlab demo` or `ctxlab replay ... --db {path}` first)")
    return path.resolve()


@command()
def report(
    db: Db = None,
    out: Annotated[str, typer.Option("--out", help="Folder to write the report and notebooks into.")] = "reports",
    run: Annotated[str | None, typer.Option("--run", help="Only this run (id, id prefix or name) [default: every run].",
                                            show_default=False)] = None,
    notebooks: Annotated[bool, typer.Option("--notebooks/--no-notebooks",
                                            help="Also execute the four notebooks and export them to HTML.")] = True,
) -> None:
    """Write OUT/report.html (one self-contained file to share) and the executed notebooks."""
    from ctxlab import store
    from ctxlab.analysis import frames
    from ctxlab.report import write_report

    path = _existing_db(db)
    folder = Path(out)
    written = write_report(path, folder / "report.html", run_id=run)
    typer.echo(f"report: {written}")
    if not notebooks:
        return
    from ctxlab.report.notebooks import run_notebooks

    with store.reading(path) as con:
        run_ids = [store.resolve_run(con, run)] if run else frames.run_ids(con)
        names = {rid: frames.run_info(con, rid).get("name") or rid for rid in run_ids}
    for rid in run_ids:
        # One run writes its notebooks beside the report; several get a folder each.
        where = folder if len(run_ids) == 1 else folder / _safe(names[rid])
        for executed in run_notebooks(path, where, run=rid):
            typer.echo(f"notebook: {executed.html}")


def _safe(name: str) -> str:
    """A run name usable as a folder name."""
    return "".join(c if c.isalnum() or c in "-_." else "_" for c in name) or "run"


@command()
def dashboard(
    db: Db = None,
    port: Annotated[int, typer.Option(help="Port to serve on.")] = 8501,
    host: Annotated[str, typer.Option(help="Address to bind (127.0.0.1 keeps it on this machine).")] = "127.0.0.1",
) -> None:
    """Open the Streamlit dashboard on a database (Ctrl-C stops it)."""
    path = _existing_db(db)
    app = Path(__file__).resolve().parent.parent.parent / "dashboard" / "app.py"
    if not app.exists():
        raise CtxlabError(f"the dashboard is not next to this ctxlab installation (looked for {app}); "
                          "run from a source checkout")
    command_line = [sys.executable, "-m", "streamlit", "run", str(app), "--server.headless", "true",
                    "--server.address", host, "--server.port", str(port), "--browser.gatherUsageStats", "false"]
    typer.echo(f"dashboard on http://{host}:{port} for {path} (Ctrl-C stops it)")
    code = subprocess.call(command_line, env={**os.environ, "CTXLAB_DB": str(path)})
    if code:
        raise typer.Exit(code)
