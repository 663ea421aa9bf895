"""Next-action agreement runs (`ctxlab agree`) in the store: written whole, read as DataFrames.

An agreement run is recorded in `agreement_runs`, not `runs`, so that the dashboard's and the
report's "newest run" stays a replay. Running the same command again finds the same run id and
replaces its rows (its model calls come from the LLM cache, so a rerun costs nothing).
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from typing import Any

import duckdb
import pandas as pd
import pyarrow as pa

from ctxlab.store.connect import transaction
from ctxlab.store.queries import resolve_run
from ctxlab.store.write import insert_arrow


def save_agreement_run(con: duckdb.DuckDBPyConnection, run_id: str, *, name: str, config: Mapping[str, Any],
                       versions: Mapping[str, Any], started_at: Any, status: str, wall_s: float,
                       rows: pa.Table, notes: Iterable[str] = ()) -> int:
    """Replace an agreement run (its record and every row) in one transaction; returns rows written.

    Args:
        rows: the run's `agreement_rows` (schema `ctxlab.store.schema.AGREEMENT_ROWS`).
        status: finished, interrupted or failed.
    """
    sessions = len({(d, s) for d, s in zip(rows.column("dataset").to_pylist(), rows.column("seq").to_pylist(),
                                           strict=True)}) if rows.num_rows else 0
    errors = sum(e is not None for e in rows.column("error").to_pylist()) if rows.num_rows else 0
    with transaction(con):
        con.execute("DELETE FROM agreement_rows WHERE run_id = ?", [run_id])
        con.execute("DELETE FROM agreement_runs WHERE run_id = ?", [run_id])
        con.execute("INSERT INTO agreement_runs VALUES (?, ?, ?, ?, ?, ?, current_timestamp, ?, ?, ?, ?, ?)",
                    [run_id, name, json.dumps(config, sort_keys=True), json.dumps(versions, sort_keys=True),
                     json.dumps(list(notes)), started_at, status, sessions, rows.num_rows, errors, wall_s])
        return insert_arrow(con, "agreement_rows", rows)


def agreement_runs(con: duckdb.DuckDBPyConnection) -> pd.DataFrame:
    """Every agreement run, newest first, with its model, window and totals."""
    return con.execute("""
        SELECT run_id, name, status, started_at, finished_at, sessions, calls, errors, wall_s,
               config->>'model' AS model, config->>'window' AS "window", config->>'sources' AS sources
        FROM agreement_runs ORDER BY started_at DESC""").df()


def agreement_rows(con: duckdb.DuckDBPyConnection, run: str | None = None) -> pd.DataFrame:
    """The rows of an agreement run (an id, id prefix or name; the newest run for None), in order.

    Raises:
        CtxlabError: no such agreement run.
    """
    run_id = resolve_run(con, run, table="agreement_runs")
    return con.execute("SELECT * FROM agreement_rows WHERE run_id = ? ORDER BY label, dataset, seq, call",
                       [run_id]).df()
