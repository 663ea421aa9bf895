"""Bulk writes: runs, batches of replay rows (Arrow tables), skips and resume markers.

Rows arrive as Arrow tables and go in with one ``INSERT ... BY NAME SELECT * FROM <arrow>`` per
table: DuckDB ingests Arrow at millions of rows per second, where ``executemany`` manages
hundreds. A batch (its rows plus the `done` markers of its conversations) is one transaction, so
after a crash a conversation is either fully stored or not at all, and a rerun redoes only it.
"""

from __future__ import annotations

import json
from collections import defaultdict
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

import duckdb
import pyarrow as pa

from ctxlab.store.connect import transaction
from ctxlab.store.schema import ROW_TABLES, SKIPS, arrow_schema, decoded


def insert_arrow(con: duckdb.DuckDBPyConnection, table: str, rows: pa.Table) -> int:
    """Append an Arrow table to `table`, matching columns by name; returns the row count."""
    if rows.num_rows == 0:
        return 0
    view = f"_ctxlab_insert_{table}"
    con.register(view, rows)
    try:
        con.execute(f"INSERT INTO {table} BY NAME SELECT * FROM {view}")
    finally:
        con.unregister(view)
    return rows.num_rows


def write_batch(con: duckdb.DuckDBPyConnection, tables: Mapping[str, Iterable[pa.Table]],
                skips: Iterable[tuple[str, str, str, str]] = ()) -> dict[str, int]:
    """Write one batch of replay rows and skips in a single transaction.

    Args:
        tables: per row table (see `ROW_TABLES`), the Arrow tables to append.
        skips: ``(run_id, dataset, where, reason)``; one already recorded (a resumed run reads its
            bad records again) is not recorded twice.

    Returns:
        Rows written per table.
    """
    written: dict[str, int] = {}
    skip_rows = list(skips)
    with transaction(con):
        for name in ROW_TABLES:
            schema = arrow_schema(ROW_TABLES[name])
            # DuckDB reads dictionary-encoded strings as strings: a table that differs from the store's
            # schema only by that encoding goes in as it is (decoding would multiply its size).
            parts = [t if decoded(t.schema) == schema else t.select(schema.names).cast(schema)
                     for t in tables.get(name, ()) if t.num_rows]
            if parts:
                written[name] = sum(insert_arrow(con, name, pa.concat_tables(same)) for same in _by_schema(parts))
        if skip_rows:
            written["skips"] = _insert_new_skips(con, skip_rows)
    return written


def _by_schema(tables: list[pa.Table]) -> list[list[pa.Table]]:
    """`tables` grouped by schema (plain and dictionary-encoded ones do not concatenate)."""
    groups: dict[pa.Schema, list[pa.Table]] = {}
    for table in tables:
        groups.setdefault(table.schema, []).append(table)
    return list(groups.values())


def _insert_new_skips(con: duckdb.DuckDBPyConnection, rows: list[tuple[str, str, str, str]]) -> int:
    new = pa.Table.from_pylist([dict(zip([c for c, _ in SKIPS], r, strict=False)) for r in dict.fromkeys(rows)],
                               schema=arrow_schema(SKIPS))
    con.register("_ctxlab_new_skips", new)
    try:
        before = con.execute("SELECT count(*) FROM skips").fetchall()[0][0]
        con.execute('INSERT INTO skips SELECT n.* FROM _ctxlab_new_skips n ANTI JOIN skips s '
                    'ON n.run_id = s.run_id AND n.dataset = s.dataset AND n."where" = s."where"')
        return con.execute("SELECT count(*) FROM skips").fetchall()[0][0] - before
    finally:
        con.unregister("_ctxlab_new_skips")


def start_run(con: duckdb.DuckDBPyConnection, run_id: str, *, name: str, config: Mapping[str, Any],
              versions: Mapping[str, Any], fingerprints: Mapping[str, Any],
              notes: Iterable[str] = ()) -> bool:
    """Record a run as running; returns True when the run already existed (a resume)."""
    exists = con.execute("SELECT count(*) FROM runs WHERE run_id = ?", [run_id]).fetchall()[0][0] > 0
    values = [name, json.dumps(config, sort_keys=True), json.dumps(versions, sort_keys=True),
              json.dumps(fingerprints, sort_keys=True), json.dumps(list(notes))]
    if exists:
        con.execute("UPDATE runs SET name = ?, config = ?, versions = ?, fingerprints = ?, notes = ?, "
                    "status = 'running', finished_at = NULL WHERE run_id = ?", [*values, run_id])
    else:
        con.execute("INSERT INTO runs (run_id, name, config, versions, fingerprints, notes, started_at, status) "
                    "VALUES (?, ?, ?, ?, ?, ?, current_timestamp, 'running')", [run_id, *values])
    return exists


def finish_run(con: duckdb.DuckDBPyConnection, run_id: str, status: str, wall_s: float,
               notes: Iterable[str] = ()) -> None:
    """Set a run's final status and its totals, counted from what is actually stored."""
    con.execute("""
        UPDATE runs SET status = ?, finished_at = current_timestamp, wall_s = coalesce(wall_s, 0) + ?,
          notes = ?,
          conversations = (SELECT count(*) FROM done WHERE run_id = ?),
          units = (SELECT count(*) FROM result_rows WHERE run_id = ?),
          errors = (SELECT count(*) FROM result_rows WHERE run_id = ? AND status <> 'ok'),
          skips = (SELECT count(*) FROM skips WHERE run_id = ?)
        WHERE run_id = ?""", [status, wall_s, json.dumps(list(notes)), *[run_id] * 5])


def done_keys(con: duckdb.DuckDBPyConnection, run_id: str) -> dict[str, set[int]]:
    """The conversations (dataset -> sequence numbers) a run has already finished."""
    out: dict[str, set[int]] = defaultdict(set)
    for dataset, seq in con.execute("SELECT dataset, seq FROM done WHERE run_id = ?", [run_id]).fetchall():
        out[dataset].add(seq)
    return out


def copy_llm_calls(con: duckdb.DuckDBPyConnection, cache_path: str | Path, since: Any) -> int:
    """Copy the LLM calls cached at `cache_path` since `since` into this store's `llm_calls`.

    Calls already present (same key) are left alone. Returns how many were copied; 0 when there
    is no cache file.
    """
    if not Path(cache_path).exists():
        return 0
    con.execute(f"ATTACH '{Path(cache_path).as_posix()}' AS llm_cache (READ_ONLY)")
    try:
        before = con.execute("SELECT count(*) FROM llm_calls").fetchall()[0][0]
        con.execute("INSERT INTO llm_calls SELECT c.* FROM llm_cache.llm_calls c "
                    "ANTI JOIN llm_calls l ON c.key = l.key WHERE c.created_at >= ?", [since])
        return con.execute("SELECT count(*) FROM llm_calls").fetchall()[0][0] - before
    finally:
        con.execute("DETACH llm_cache")
