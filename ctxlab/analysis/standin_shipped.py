"""The stand-in's kindness measured on the shared real logs, shipped with the package as data.

A user whose own logs hold no compaction still reads, beside every summarizing policy's verdict,
how kind the stand-in was where agents did compact: the rows `ctxlab compactions` graded on the
shared logs' compactions, in ``data/standin_gap.json`` (JSON, never code), with their provenance
(files and their SHA-256, the ctxlab commit, the counter, the date). Regenerate it after a change
to the summarizer or the grading with::

    python -m ctxlab.analysis.standin_shipped ../shared/reallogs/claude_code/4d5611e5-....jsonl ...

`standin_gap` picks the figure a verdict carries: the user's own compactions when any needed
anything, else the shipped ones; `logs_gap` grades the user's conversations for it (each
compaction against its agent's own preset only) and `stored_gap` reads the newest grading
`ctxlab compactions --db` stored.
"""

from __future__ import annotations

import hashlib
import json
import subprocess
import sys
from collections.abc import Iterable, Sequence
from datetime import date
from pathlib import Path

import duckdb
import pandas as pd

from ctxlab.analysis.standin import StandinGap, own_preset_gap
from ctxlab.messages import Conversation
from ctxlab.store.compaction_grades import compaction_grades
from ctxlab.store.schema import CompactionGradeRow, first_row

SHIPPED = Path(__file__).with_name("data") / "standin_gap.json"
SHIPPED_SOURCE = "the shared real logs, shipped"
YOURS = "your logs"


def shipped_rows(path: Path = SHIPPED) -> pd.DataFrame:
    """The shipped grading's rows (`CompactionGradeRow` columns)."""
    data = json.loads(path.read_text(encoding="utf-8"))
    return pd.DataFrame(data["rows"], columns=list(CompactionGradeRow._fields))


def shipped_provenance(path: Path = SHIPPED) -> dict:
    """Where the shipped rows come from: files (with SHA-256), commit, counter, date, command."""
    return json.loads(path.read_text(encoding="utf-8"))["provenance"]


def standin_gap(rows: pd.DataFrame | None = None) -> StandinGap | None:
    """The figure a verdict carries: from `rows` (the user's gradings) when they hold a compaction
    that needed anything, else from the shipped measurement."""
    if rows is not None and not rows.empty:
        mine = own_preset_gap(rows, YOURS)
        if mine is not None:
            return mine
    return own_preset_gap(shipped_rows(), SHIPPED_SOURCE)


def logs_rows(conversations: Iterable[Conversation], counter: str = "o200k_base") -> list[CompactionGradeRow]:
    """The gradings of `conversations`' own compactions, each against its agent's preset only."""
    from ctxlab.replay.compaction_grading import OWN_PRESET, grade_compactions

    return [g.row for conv in conversations if (conv.meta or {}).get("compactions")
            for g in grade_compactions(conv, counter, [p for f, p in OWN_PRESET.items()
                                                       if f == (conv.meta or {}).get("format")])]


def logs_gap(rows: Sequence[CompactionGradeRow]) -> StandinGap | None:
    """`standin_gap` of `logs_rows`' gradings (the shipped figure when they needed nothing)."""
    return standin_gap(pd.DataFrame([r._asdict() for r in rows]) if rows else None)


def stored_gap(con: duckdb.DuckDBPyConnection) -> StandinGap | None:
    """`standin_gap` of the newest grading in a store (the shipped figure without one)."""
    exists = first_row(con.execute("SELECT count(*) FROM information_schema.tables "
                                   "WHERE table_name = 'compaction_grades'"))
    return standin_gap(compaction_grades(con) if exists and exists[0] else None)


def write_shipped(rows: Sequence[CompactionGradeRow], files: Iterable[str], counter: str, path: Path = SHIPPED) -> None:
    """Write the rows (without their lost strings) and their provenance to `path`."""
    sources = [{"file": Path(f).name, "sha256": hashlib.sha256(Path(f).read_bytes()).hexdigest()} for f in files]
    commit = subprocess.run(["git", "rev-parse", "--short", "HEAD"], capture_output=True, text=True, check=False,
                            cwd=Path(__file__).parent).stdout.strip() or None
    provenance = {"files": sources, "counter": counter, "ctxlab_commit": commit, "date": date.today().isoformat(),
                  "command": "python -m ctxlab.analysis.standin_shipped " + " ".join(Path(f).name for f in files)}
    data = {"provenance": provenance, "rows": [{**r._asdict(), "lost": None} for r in rows]}
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(data, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")


def main(files: Sequence[str]) -> None:
    """Grade every compaction of `files` (o200k_base) and ship the rows."""
    from ctxlab.datasets import load_conversations
    from ctxlab.replay.compaction_grading import grade_compactions

    rows = [g.row for f in files for conv in load_conversations(f) for g in grade_compactions(conv)]
    write_shipped(rows, files, "o200k_base")


if __name__ == "__main__":
    main(sys.argv[1:])


__all__ = ["SHIPPED", "SHIPPED_SOURCE", "YOURS", "logs_gap", "logs_rows", "shipped_provenance", "shipped_rows", "standin_gap",
           "stored_gap", "write_shipped"]
