"""`ctxlab learn` runs in the store: one row per fitted model, beside its judging run.

The judging replay is an ordinary run (`run_id`: its rows in the run tables, read like any per-turn
run); `learn_runs` records which sessions were on which side of the split, the model itself (its
JSON and digest), how well it ranked, and the tables it was judged by. Saving again (same id)
replaces the record.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

import duckdb
import pandas as pd
import pyarrow as pa

from ctxlab.store.connect import transaction
from ctxlab.store.schema import LEARN_RUNS, arrow_schema
from ctxlab.store.write import insert_arrow

_JSON = {"sources", "options", "train", "test", "model", "fit", "results"}


def save_learn(con: duckdb.DuckDBPyConnection, record: Mapping[str, Any]) -> None:
    """Replace a learn record (the `LEARN_RUNS` columns, JSON columns as Python values)."""
    row = {k: json.dumps(v, default=str) if k in _JSON else v for k, v in record.items()}
    with transaction(con):
        con.execute("DELETE FROM learn_runs WHERE learn_id = ?", [record["learn_id"]])
        insert_arrow(con, "learn_runs", pa.Table.from_pylist([row], schema=arrow_schema(LEARN_RUNS)))


def learn_runs(con: duckdb.DuckDBPyConnection) -> pd.DataFrame:
    """Every learn record, newest first, its JSON columns decoded."""
    df = con.execute("SELECT * FROM learn_runs ORDER BY created_at DESC").df()
    for column in _JSON & set(df.columns):
        df[column] = [json.loads(v) if isinstance(v, str) else v for v in df[column]]
    return df


__all__ = ["learn_runs", "save_learn"]
