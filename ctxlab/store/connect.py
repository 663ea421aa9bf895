"""Opening a store: the lock-aware retry loop and the open-write-close pattern the replay uses.

DuckDB lets one process hold a database file for writing, or any number of processes hold it
read-only, never both. So the replay never keeps its write connection open: it opens, writes a
batch in one transaction and closes (`writing`), and readers (dashboard, notebooks) open
read-only between batches. Whoever meets the other's lock retries for a few seconds.
"""

from __future__ import annotations

import contextlib
import os
import time
from collections.abc import Iterator
from pathlib import Path

import duckdb

from ctxlab.errors import CtxlabError
from ctxlab.store.schema import LATEST, current_version, migrate

DEFAULT_DB = "ctxlab.duckdb"
READ_TIMEOUT_S = 10.0
WRITE_TIMEOUT_S = 60.0


def default_db() -> str:
    """The database path: env ``CTXLAB_DB``, else ``ctxlab.duckdb`` in the working folder."""
    return os.environ.get("CTXLAB_DB") or DEFAULT_DB


def is_lock_error(exc: BaseException) -> bool:
    """True when DuckDB refused the file because another process holds a conflicting lock."""
    return isinstance(exc, duckdb.IOException) and "lock" in str(exc).lower()


def connect(path: str | Path | None = None, read_only: bool = False, *,
            timeout: float | None = None) -> duckdb.DuckDBPyConnection:
    """Open a store, waiting up to `timeout` seconds while another process holds its lock.

    A writable connection creates the file and applies pending migrations; a read-only one needs
    an existing store, and migrates one written by an older ctxlab first (briefly writing).

    Args:
        path: database file (default: `default_db()`); ``":memory:"`` for a throwaway store.
        read_only: open for reading only (several readers may share the file).
        timeout: how long to retry on a lock conflict (default 10 s reading, 60 s writing).

    Raises:
        CtxlabError: no store at `path` (read-only), or the lock was not released in time.
    """
    path = str(path or default_db())
    if read_only and path != ":memory:" and not Path(path).exists():
        raise CtxlabError(f"no ctxlab database at {path} (run `ctxlab replay` or `ctxlab demo` first)")
    limit = timeout if timeout is not None else (READ_TIMEOUT_S if read_only else WRITE_TIMEOUT_S)
    con = _open_with_retry(path, read_only, limit)
    if read_only:
        if current_version(con) < LATEST:  # written by an older ctxlab: migrate it once, then read
            con.close()
            connect(path, timeout=limit).close()
            con = _open_with_retry(path, True, limit)
    else:
        # Checked on every open (about 15 ms; the replay opens once per batch): a cache of migrated
        # files keyed by path and inode was wrong when a deleted file's inode was reused.
        migrate(con)
    return con


def _open_with_retry(path: str, read_only: bool, limit: float) -> duckdb.DuckDBPyConnection:
    deadline = time.monotonic() + limit
    delay = 0.05
    while True:
        try:
            return duckdb.connect(path, read_only=read_only)
        except duckdb.Error as exc:
            if not is_lock_error(exc):
                raise CtxlabError(f"cannot open {path}: {exc}") from exc
            if time.monotonic() >= deadline:
                raise CtxlabError(f"{path} is locked by another process (a replay writing, or a "
                                  f"writable connection left open); gave up after {limit:.0f} s") from exc
        time.sleep(delay)
        delay = min(delay * 2, 0.5)


@contextlib.contextmanager
def writing(path: str | Path | None = None, *, timeout: float | None = None,
            memory_limit: str | None = None) -> Iterator[duckdb.DuckDBPyConnection]:
    """A writable connection held only for the ``with`` block, so readers get in between;
    `memory_limit` (DuckDB's, e.g. ``"256MB"``) bounds what DuckDB holds while it lasts."""
    con = connect(path, timeout=timeout)
    try:
        if memory_limit is not None:
            con.execute(f"SET memory_limit = '{memory_limit}'")
        yield con
    finally:
        con.close()


@contextlib.contextmanager
def reading(path: str | Path | None = None, *, timeout: float | None = None) -> Iterator[duckdb.DuckDBPyConnection]:
    """A read-only connection held only for the ``with`` block."""
    con = connect(path, read_only=True, timeout=timeout)
    try:
        yield con
    finally:
        con.close()


@contextlib.contextmanager
def transaction(con: duckdb.DuckDBPyConnection) -> Iterator[duckdb.DuckDBPyConnection]:
    """BEGIN ... COMMIT, rolled back on any error (so a batch lands whole or not at all)."""
    con.execute("BEGIN TRANSACTION")
    try:
        yield con
    except BaseException:
        con.execute("ROLLBACK")
        raise
    con.execute("COMMIT")
