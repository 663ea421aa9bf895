"""Gradings of recorded compactions in the store (`ctxlab compactions --db`, migration 9).

Each command run is one grading (`grading_id`, `created_at`, the counter sizes were measured
with); its rows are `CompactionGradeRow`s, one per recorded compaction and candidate.
"""

from __future__ import annotations

import uuid
from collections.abc import Sequence
from datetime import datetime

import duckdb
import pandas as pd
import pyarrow as pa

from ctxlab.store.connect import transaction
from ctxlab.store.schema import COMPACTION_GRADES, CompactionGradeRow, arrow_schema, first_row
from ctxlab.store.write import insert_arrow


def save_compaction_grades(con: duckdb.DuckDBPyConnection, rows: Sequence[CompactionGradeRow], counter: str,
                           grading_id: str | None = None) -> str:
    """Write one grading's rows in one transaction; returns its id (new unless given)."""
    grading_id = grading_id or uuid.uuid4().hex[:12]
    now = datetime.now()
    table = pa.Table.from_pylist([{"grading_id": grading_id, "created_at": now, "counter": counter, **r._asdict()}
                                  for r in rows], schema=arrow_schema(COMPACTION_GRADES))
    with transaction(con):
        insert_arrow(con, "compaction_grades", table)
    return grading_id


def compaction_grades(con: duckdb.DuckDBPyConnection, grading_id: str | None = None) -> pd.DataFrame:
    """The rows of one grading (default: the newest), in the order written."""
    if grading_id is None:
        newest = first_row(con.execute("SELECT grading_id FROM compaction_grades ORDER BY created_at DESC LIMIT 1"))
        if newest is None:
            return pd.DataFrame(columns=[c for c, _ in COMPACTION_GRADES])
        grading_id = newest[0]
    return con.execute("SELECT * FROM compaction_grades WHERE grading_id = ? ORDER BY rowid", [grading_id]).df()


__all__ = ["compaction_grades", "save_compaction_grades"]
