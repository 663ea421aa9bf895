"""`ctxlab tune` searches in the store: the settings each search evaluated, beside their runs.

Every evaluated setting is an ordinary run (its rows in the run tables, its config saying which
preset and knob values it is, under ``tune``); `tune_searches` and `tune_evaluations` record which
runs one search compared, its front and its pick, so the dashboard and the report can show the
searched front without searching again. Saving a search again (same id) replaces its record.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import Any

import duckdb
import pandas as pd
import pyarrow as pa

from ctxlab.store.connect import transaction
from ctxlab.store.schema import ROW_TABLES, TUNE_EVALUATIONS, TUNE_SEARCHES, arrow_schema, first_row
from ctxlab.store.write import insert_arrow

_JSON = {"scope", "sources", "goal", "knobs", "knob_values", "params", "measures", "front", "ties"}


def run_status(con: duckdb.DuckDBPyConnection, run_id: str) -> str | None:
    """A run's status (finished, running, interrupted, failed), None when there is no such run."""
    row = first_row(con.execute("SELECT status FROM runs WHERE run_id = ?", [run_id]))
    return row[0] if row else None


def clear_run_rows(con: duckdb.DuckDBPyConnection, run_id: str) -> None:
    """Delete a run's rows from every row table (before writing it whole again)."""
    for name in ROW_TABLES:
        con.execute(f"DELETE FROM {name} WHERE run_id = ?", [run_id])


def save_search(con: duckdb.DuckDBPyConnection, search: Mapping[str, Any],
                evaluations: Sequence[Mapping[str, Any]]) -> int:
    """Replace a search's record and its evaluations in one transaction; returns evaluations written.

    Args:
        search: the `tune_searches` columns (JSON columns as Python values).
        evaluations: per evaluated setting, the `tune_evaluations` columns.
    """
    search_id = search["search_id"]
    rows = [{**e, "search_id": search_id} for e in evaluations]
    with transaction(con):
        con.execute("DELETE FROM tune_evaluations WHERE search_id = ?", [search_id])
        con.execute("DELETE FROM tune_searches WHERE search_id = ?", [search_id])
        insert_arrow(con, "tune_searches", _table([search], TUNE_SEARCHES))
        return insert_arrow(con, "tune_evaluations", _table(rows, TUNE_EVALUATIONS))


def _table(rows: Sequence[Mapping[str, Any]], columns: Any) -> pa.Table:
    encoded = [{k: json.dumps(v, default=str) if k in _JSON else v for k, v in row.items()} for row in rows]
    return pa.Table.from_pylist(encoded, schema=arrow_schema(columns))


def tune_searches(con: duckdb.DuckDBPyConnection) -> pd.DataFrame:
    """Every stored search, newest first: preset, window, method, sessions' sources, settings
    evaluated and the picked setting's label."""
    return con.execute("""
        SELECT s.search_id, s.name, s.preset, s."window", s.method, s.sources, s.scope, s.created_at, s.wall_s,
               count(e.evaluation) AS settings, any_value(e.label) FILTER (WHERE e.picked) AS pick
        FROM tune_searches s LEFT JOIN tune_evaluations e USING (search_id)
        GROUP BY ALL ORDER BY s.created_at DESC""").df()


def tune_evaluations(con: duckdb.DuckDBPyConnection, search_id: str) -> pd.DataFrame:
    """The settings one search evaluated, in order, with their JSON columns decoded."""
    df = con.execute("SELECT * FROM tune_evaluations WHERE search_id = ? ORDER BY evaluation", [search_id]).df()
    for column in _JSON & set(df.columns):
        df[column] = [json.loads(v) if isinstance(v, str) else v for v in df[column]]
    return df


__all__ = ["clear_run_rows", "run_status", "save_search", "tune_evaluations", "tune_searches"]
