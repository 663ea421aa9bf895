"""The LLM call cache: one DuckDB file shared by every process that summarizes.

Replay workers run in several processes, and DuckDB lets only one process hold a file for
writing, so `open_llm_cache` returns a handle that opens the file per call (with the lock retry)
instead of a long-lived connection; the cost is milliseconds against an LLM call's seconds.
`get_llm_call`/`put_llm_call` accept that handle or any DuckDB connection with an `llm_calls`
table (a run database holds the calls its run made, copied at the end of the replay).
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import duckdb

from ctxlab.store.connect import _open_with_retry
from ctxlab.store.schema import LLM_CALLS, create_table, first_row

LLM_COLUMNS = tuple(c for c, _ in LLM_CALLS)
_SECRET_KEY = re.compile(r"api[_-]?key|authorization|secret|password|bearer|token$", re.IGNORECASE)
_LOCK_TIMEOUT_S = 30.0


def default_llm_cache() -> Path:
    """Env ``CTXLAB_LLM_CACHE``, else ``~/.cache/ctxlab/llm_calls.duckdb``."""
    env = os.environ.get("CTXLAB_LLM_CACHE")
    return Path(env) if env else Path.home() / ".cache" / "ctxlab" / "llm_calls.duckdb"


@dataclass(frozen=True)
class LLMCache:
    """A cache file, opened per operation so that several processes can share it."""

    path: Path

    def connect(self) -> duckdb.DuckDBPyConnection:
        con = _open_with_retry(str(self.path), False, _LOCK_TIMEOUT_S)
        con.execute(create_table("llm_calls", LLM_CALLS))
        return con


def open_llm_cache(path: str | Path | None = None) -> LLMCache:
    """The LLM call cache at `path` (default `default_llm_cache()`), created on first use."""
    target = Path(path) if path else default_llm_cache()
    target.parent.mkdir(parents=True, exist_ok=True)
    cache = LLMCache(target)
    cache.connect().close()
    return cache


def get_llm_call(con: LLMCache | duckdb.DuckDBPyConnection, key: str) -> dict[str, Any] | None:
    """The cached call stored under `key` (params decoded from JSON), or None."""
    def fetch(c: duckdb.DuckDBPyConnection) -> tuple | None:
        cols = ", ".join(f'"{c}"' for c in LLM_COLUMNS)
        return first_row(c.execute(f"SELECT {cols} FROM llm_calls WHERE key = ?", [key]))

    row = _with(con, fetch)
    if row is None:
        return None
    record = dict(zip(LLM_COLUMNS, row, strict=False))
    if isinstance(record.get("params"), str):
        record["params"] = json.loads(record["params"])
    return record


def put_llm_call(con: LLMCache | duckdb.DuckDBPyConnection, record: Mapping[str, Any]) -> None:
    """Store a call under ``record["key"]``, replacing an older one with that key.

    Unknown fields are ignored and any parameter that looks like a credential (api_key,
    authorization, ...) is removed before storing.
    """
    if not record.get("key"):
        raise ValueError("an LLM call record needs a 'key'")
    row = {c: record.get(c) for c in LLM_COLUMNS if c != "created_at"}
    row["params"] = json.dumps(scrub(record.get("params") or {}), sort_keys=True, default=str)
    cols = ", ".join(f'"{c}"' for c in row)
    marks = ", ".join("?" for _ in row)
    sql = (f"INSERT OR REPLACE INTO llm_calls ({cols}, created_at) "
           f"VALUES ({marks}, coalesce(?, current_timestamp))")
    _with(con, lambda c: c.execute(sql, [*row.values(), record.get("created_at")]))


def scrub(params: Any) -> Any:
    """`params` without credential-like keys, at any depth."""
    if isinstance(params, Mapping):
        return {k: scrub(v) for k, v in params.items() if not _SECRET_KEY.search(str(k))}
    if isinstance(params, list | tuple):
        return [scrub(v) for v in params]
    return params


def _with(con: LLMCache | duckdb.DuckDBPyConnection, op):
    if isinstance(con, LLMCache):
        c = con.connect()
        try:
            return op(c)
        finally:
            c.close()
    return op(con)
