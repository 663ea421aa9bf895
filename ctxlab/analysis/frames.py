"""The DataFrames the notebooks, the dashboard and the HTML report read from a store.

SQL over the stable views (`results`, `estimator_errors`, `estimator_conversation_errors`) and the
plain `runs` table only, selecting just the columns the analyses use, so a large run loads in a
fraction of the time `SELECT *` takes. The numbers are then computed by `ctxlab.analysis.tables`.

    from ctxlab import store
    from ctxlab.analysis import frames

    with store.reading("ctxlab.duckdb") as con:
        run = store.resolve_run(con, None)
        df = frames.results(con, run)
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import duckdb
import pandas as pd

from ctxlab.errors import CtxlabError

RESULT_COLUMNS = (
    "run_id", "dataset", "seq", "unit", "conversation_id", "strategy", "label", "counter", "window", "mode",
    "turn", "messages_in", "tokens_before", "tokens_after", "retained_ratio", "fits", "reference",
    "reference_tokens_before", "reference_tokens_after", "fits_reference", "messages_kept",
    "messages_truncated", "messages_dropped", "messages_added", "tool_pairs_intact", "orphan_calls",
    "orphan_results", "system_kept", "newest_user_kept", "fact_recall", "facts_total", "facts_kept",
    "has_summary", "summary_tokens", "llm_calls", "llm_input_tokens", "llm_output_tokens", "llm_cost_usd",
    "latency_ms", "status", "needed_total", "needed_kept", "needed_kept_in_context", "needed_old_total",
    "needed_old_kept", "needed_regex_total", "needed_regex_kept", "refetch_tokens", "instructions_total",
    "instructions_kept", "limit_kept",
)
ESTIMATOR_COLUMNS = ("dataset", "seq", "conversation_id", "message_id", "role", "content_kind", "language",
                     "chars", "counter", "reference", "estimated", "actual", "error", "error_pct")
REQUEST_COLUMNS = ("dataset", "seq", "conversation_id", "counter", "reference", "estimated", "actual", "error",
                   "error_pct")
_JSON_FIELDS = ("config", "versions", "fingerprints", "notes")


def locate_db(path: str | Path) -> str:
    """`path` as given when it exists or is absolute; a relative path not found in the working
    folder is also looked for one and two folders up (a notebook runs in ``notebooks/``, the
    database usually sits at the repository root)."""
    candidate = Path(path)
    if candidate.is_absolute() or candidate.exists():
        return str(candidate)
    for parent in (Path.cwd().parent, Path.cwd().parent.parent):
        if (parent / candidate).exists():
            return str(parent / candidate)
    return str(candidate)


def _where(run_id: str, dataset: str | None, mode: str | None = None) -> tuple[str, list[Any]]:
    clauses, args = ["run_id = ?"], [run_id]
    for column, value in (("dataset", dataset), ("mode", mode)):
        if value is not None:
            clauses.append(f"{column} = ?")
            args.append(value)
    return " AND ".join(clauses), args


def results(con: duckdb.DuckDBPyConnection, run_id: str, *, dataset: str | None = None,
            mode: str | None = None) -> pd.DataFrame:
    """Rows of the `results` view of a run: one per unit and reference tokenizer.

    Analyses that count units take one reference's rows (`ctxlab.analysis.tables.per_unit`).
    """
    where, args = _where(run_id, dataset, mode)
    cols = ", ".join(f'"{c}"' for c in RESULT_COLUMNS)  # quoted: "window" is a reserved word in DuckDB
    return con.execute(f"SELECT {cols} FROM results WHERE {where} "
                       "ORDER BY dataset, seq, unit, reference", args).df()


def unit_results(con: duckdb.DuckDBPyConnection, run_id: str, reference: str, columns: Sequence[str], *,
                 dataset: str, seqs: tuple[int, int], mode: str = "per-turn") -> pd.DataFrame:
    """`results` rows of one `dataset`'s conversations ``seqs[0] <= seq <= seqs[1]``, measured with
    `reference`, only `columns`, in `results`' order: what a per-session figure reads a slice at a
    time, so a run of millions of units never sits whole in memory."""
    where, args = _where(run_id, dataset, mode)
    cols = ", ".join(f'"{c}"' for c in columns)
    return con.execute(f"SELECT {cols} FROM results WHERE {where} AND reference = ? AND seq BETWEEN ? AND ? "
                       "ORDER BY dataset, seq, unit, reference", [*args, reference, *seqs]).df()


def conversations(con: duckdb.DuckDBPyConnection, run_id: str, *,
                  dataset: str | None = None) -> list[tuple[str, int, str]]:
    """The (dataset, seq, conversation id) of every conversation a run stored units of, in order."""
    where, args = _where(run_id, dataset)
    return [(d, s, c) for d, s, c in con.execute(f"SELECT DISTINCT dataset, seq, conversation_id FROM result_rows "
                                                 f"WHERE {where} ORDER BY dataset, seq", args).fetchall()]


def estimator_rows(con: duckdb.DuckDBPyConnection, run_id: str, *, dataset: str | None = None) -> pd.DataFrame:
    """Per-message estimator errors of a run (`estimator_errors`)."""
    where, args = _where(run_id, dataset)
    cols = ", ".join(ESTIMATOR_COLUMNS)
    return con.execute(f"SELECT {cols} FROM estimator_errors WHERE {where}", args).df()


def request_errors(con: duckdb.DuckDBPyConnection, run_id: str, *, dataset: str | None = None) -> pd.DataFrame:
    """Whole-request estimator errors (tool definitions included): `estimator_conversation_errors`."""
    where, args = _where(run_id, dataset)
    cols = ", ".join(REQUEST_COLUMNS)
    return con.execute(f"SELECT {cols} FROM estimator_conversation_errors WHERE {where}", args).df()


def run_info(con: duckdb.DuckDBPyConnection, run_id: str) -> dict[str, Any]:
    """One run's row of `runs` with its JSON columns (config, versions, fingerprints, notes) parsed."""
    df = con.execute("SELECT * FROM runs WHERE run_id = ?", [run_id]).df()
    if df.empty:
        raise CtxlabError(f"no run {run_id!r} in this database")
    info = df.iloc[0].to_dict()
    for key in _JSON_FIELDS:
        value = info.get(key)
        info[key] = json.loads(value) if isinstance(value, str) and value else (value or {})
    if "budgets" in info["config"]:  # a run stored before issue 21 named its windows "budgets"
        info["config"].setdefault("windows", info["config"].pop("budgets"))
    return info


def run_ids(con: duckdb.DuckDBPyConnection) -> list[str]:
    """Every run id, oldest first (the order a report tells them in)."""
    return [r[0] for r in con.execute("SELECT run_id FROM runs ORDER BY started_at, run_id").fetchall()]


def datasets(con: duckdb.DuckDBPyConnection, run_id: str) -> list[str]:
    """The datasets a run replayed, in name order."""
    rows = con.execute("SELECT DISTINCT dataset FROM results WHERE run_id = ? ORDER BY dataset", [run_id]).fetchall()
    return [r[0] for r in rows]


def variants(con: duckdb.DuckDBPyConnection, run_id: str) -> pd.DataFrame:
    """The strategy variants of a run: label, strategy, counter and the full spec (``params``
    JSON, which `ctxlab.analysis.explain.build_strategy` rebuilds exactly)."""
    return con.execute("SELECT label, any_value(strategy) AS strategy, counter, any_value(params) AS params "
                       "FROM results WHERE run_id = ? GROUP BY label, counter ORDER BY label, counter",
                       [run_id]).df()


def summaries(con: duckdb.DuckDBPyConnection, run_id: str, *, dataset: str | None = None) -> pd.DataFrame:
    """The summaries of a run with their metrics as columns (`ctxlab.store.summaries`), optionally
    of one dataset."""
    from ctxlab import store

    df = store.summaries(con, run_id)
    return df[df["dataset"] == dataset].reset_index(drop=True) if dataset is not None and not df.empty else df
