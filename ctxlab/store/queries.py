"""Query functions for notebooks, the dashboard and the CLI; each returns a pandas DataFrame.

They read only the stable views (`results`, `estimator_errors`) and the plain tables, so users'
own SQL and these functions see the same numbers.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

import duckdb
import pandas as pd

from ctxlab.errors import CtxlabError
from ctxlab.messages import Conversation
from ctxlab.store.schema import first_row

SUMMARY_KEYS = ("label", "counter", "window", "mode")


def runs(con: duckdb.DuckDBPyConnection) -> pd.DataFrame:
    """Every run, newest first, with its totals; ``tuned`` names the preset of a setting `ctxlab tune`
    evaluated (None for a replay). A run stored before issue 21 has its windows under the config key
    ``budgets``."""
    return con.execute("""
        SELECT run_id, name, status, started_at, finished_at, conversations, units, errors, skips, wall_s,
               config->>'counters' AS counters, coalesce(config->>'windows', config->>'budgets') AS windows,
               config->>'modes' AS modes, config->>'sources' AS sources, config->'tune'->>'preset' AS tuned
        FROM runs ORDER BY started_at DESC""").df()


RUN_TABLES = {"runs": "run", "agreement_runs": "agreement run"}


def resolve_run(con: duckdb.DuckDBPyConnection, run: str | None, *, table: str = "runs") -> str:
    """A run id from an id, an id prefix or a run name (newest match); the newest run for None.
    `table` is ``runs`` (replays) or ``agreement_runs`` (`ctxlab agree`). The newest run is a
    replay's: the one-setting runs `ctxlab tune` stores are chosen only when there is nothing else."""
    what = RUN_TABLES[table]
    if run is None:
        tuned = "(config->'tune') IS NOT NULL, " if table == "runs" else ""
        row = first_row(con.execute(f"SELECT run_id FROM {table} ORDER BY {tuned}started_at DESC LIMIT 1"))
    else:
        row = first_row(con.execute(
            f"SELECT run_id FROM {table} WHERE run_id = ? OR run_id LIKE ? || '%' OR name = ? "
            "ORDER BY (run_id = ?) DESC, started_at DESC LIMIT 1", [run, run, run, run]))
    if row is None:
        known = [r[0] for r in con.execute(f"SELECT coalesce(name, run_id) FROM {table}").fetchall()]
        missing = f"no {what} {run!r} in this database" if run else f"this database has no {what}s yet"
        raise CtxlabError(missing + (f"; {what}s: {', '.join(known)}" if known else ""))
    return row[0]


def results(con: duckdb.DuckDBPyConnection, run_id: str | None = None, *, strategy: str | None = None,
            window: int | None = None, mode: str | None = None, reference: str | None = None,
            limit: int | None = None) -> pd.DataFrame:
    """Rows of the `results` view (one per unit and reference tokenizer), optionally filtered."""
    where, args = _filters(run_id=run_id, strategy=strategy, window=window, mode=mode, reference=reference)
    tail = f" LIMIT {int(limit)}" if limit else ""
    return con.execute(f"SELECT * FROM results {where} ORDER BY dataset, seq, unit, reference{tail}", args).df()


def strategy_summary(con: duckdb.DuckDBPyConnection, run_id: str, *, mode: str | None = None,
                     dataset: str | None = None) -> pd.DataFrame:
    """Per strategy x counter x window x mode: counts, needed-context recall (pooled over the
    per-turn units' needed strings; NULL in final mode), mean retained ratio, fit rates (counter and
    each reference, as ``real_fit_<reference>`` columns), tool-pair integrity, pinned kept, mean
    (regex) fact recall and latency percentiles."""
    where, args = _filters(run_id=run_id, mode=mode, dataset=dataset)
    # sum(facts_total) is cast back to BIGINT: without it DuckDB 2.0.0 narrows that sum to an int8 in
    # this grouping and fails (ConversionException) on the full demo's final run.
    base = con.execute(f"""
        SELECT label, any_value(strategy) AS strategy, counter, "window", mode, count(*) AS units,
               count(*) FILTER (WHERE status <> 'ok') AS errors,
               sum(g.needed_kept) / nullif(sum(g.needed_total), 0) AS needed_recall,
               avg(retained_ratio) AS retained_ratio, avg(fits::INT) AS fit_rate,
               avg(tool_pairs_intact::INT) AS tool_integrity,
               avg((coalesce(system_kept, true) AND coalesce(newest_user_kept, true))::INT) AS pinned_kept,
               avg(fact_recall) AS fact_recall, sum(facts_total)::BIGINT AS facts,
               median(latency_ms) AS p50_latency_ms, quantile_cont(latency_ms, 0.95) AS p95_latency_ms,
               sum(llm_cost_usd) AS llm_cost_usd
        FROM result_rows LEFT JOIN result_grounded g USING (run_id, dataset, seq, unit) {where}
        GROUP BY ALL ORDER BY label, counter, mode, "window" """, args).df()
    fits = con.execute(f"""
        SELECT label, counter, "window", mode, reference, avg(fits_reference::INT) AS rate
        FROM results {where} AND reference IS NOT NULL GROUP BY ALL""", args).df()
    if fits.empty:
        return base
    wide = fits.pivot_table(index=list(SUMMARY_KEYS), columns="reference", values="rate").reset_index()
    wide.columns = [c if c in SUMMARY_KEYS else f"real_fit_{c}" for c in wide.columns]
    return base.merge(wide, on=list(SUMMARY_KEYS), how="left")


def estimator_summary(con: duckdb.DuckDBPyConnection, run_id: str | None = None,
                      by: Sequence[str] = ("counter", "reference")) -> pd.DataFrame:
    """Estimator error per group (`by`: columns of `estimator_errors`, e.g. counter, reference,
    content_kind, language, role): n, mean signed error %, MAPE %, p95 |error| % and the share
    of underestimates (the dangerous direction: the strategy believes it fits)."""
    allowed = {"counter", "reference", "content_kind", "language", "role", "dataset"}
    unknown = [b for b in by if b not in allowed]
    if unknown:
        raise CtxlabError(f"cannot group estimator errors by {unknown}; valid: {', '.join(sorted(allowed))}")
    where, args = _filters(run_id=run_id)
    keys = ", ".join(by)
    return con.execute(f"""
        SELECT {keys}, count(*) AS n, avg(error_pct) AS mean_signed_error_pct,
               avg(abs(error_pct)) AS mape_pct, quantile_cont(abs(error_pct), 0.95) AS p95_abs_error_pct,
               avg((estimated < actual)::INT) AS underestimate_share
        FROM estimator_errors {where} AND actual > 0 GROUP BY {keys} ORDER BY {keys}""", args).df()


def compare_runs(con: duckdb.DuckDBPyConnection, a: str, b: str, *, mode: str | None = None) -> pd.DataFrame:
    """Two runs' strategy summaries side by side (suffixes ``_a``/``_b``) with deltas b - a."""
    left = strategy_summary(con, a, mode=mode)
    right = strategy_summary(con, b, mode=mode)
    merged = left.merge(right, on=list(SUMMARY_KEYS), how="outer", suffixes=("_a", "_b"))
    for col in ("retained_ratio", "fit_rate", "fact_recall", "tool_integrity"):
        if f"{col}_a" in merged and f"{col}_b" in merged:
            merged[f"{col}_delta"] = merged[f"{col}_b"] - merged[f"{col}_a"]
    return merged.sort_values(list(SUMMARY_KEYS)).reset_index(drop=True)


def conversations(con: duckdb.DuckDBPyConnection, run_id: str) -> pd.DataFrame:
    """The conversations of a run: dataset, seq, id, message count, tokens per reference."""
    return con.execute("SELECT dataset, seq, conversation_id, n_messages, tokens FROM conversations "
                       "WHERE run_id = ? ORDER BY dataset, seq", [run_id]).df()


def conversation(con: duckdb.DuckDBPyConnection, run_id: str, conversation_id: str, *,
                 dataset: str | None = None) -> Conversation:
    """The original conversation as replayed (to re-run strategies on it live).

    Ids need not be unique in a dataset (ShareGPT's are not); the first match in order is returned.
    """
    where, args = _filters(run_id=run_id, dataset=dataset)
    row = first_row(con.execute(f"SELECT record FROM conversations {where} AND conversation_id = ? "
                      "ORDER BY dataset, seq LIMIT 1", [*args, conversation_id]))
    if row is None or row[0] is None:
        raise CtxlabError(f"run {run_id} has no stored conversation {conversation_id!r}")
    return Conversation.from_record(json.loads(row[0]))


def stored_conversations(con: duckdb.DuckDBPyConnection, run_id: str, dataset: str) -> list[tuple[int, Conversation]]:
    """Every conversation of one dataset of a run, as replayed, with its number there (empty when
    the run stored no records)."""
    rows = con.execute("SELECT seq, record FROM conversations WHERE run_id = ? AND dataset = ? AND record IS NOT NULL "
                       "ORDER BY seq", [run_id, dataset]).fetchall()
    return [(int(seq), Conversation.from_record(json.loads(record))) for seq, record in rows]


def summaries(con: duckdb.DuckDBPyConnection, run_id: str) -> pd.DataFrame:
    """Summaries the strategies wrote, with their metrics expanded into columns."""
    df = con.execute("SELECT * FROM summaries WHERE run_id = ? ORDER BY dataset, seq, unit", [run_id]).df()
    if df.empty:
        return df
    metrics = pd.json_normalize([json.loads(m) if m else {} for m in df.pop("metrics")])
    return pd.concat([df, metrics.drop(columns=[c for c in metrics if c in df], errors="ignore")], axis=1)


def recorded_compactions(con: duckdb.DuckDBPyConnection, run_id: str, *,
                         dataset: str | None = None) -> pd.DataFrame:
    """Agent logs' recorded compactions: per compaction, the agent's summary (``strategy``
    ``agent``) and each ctxlab strategy at the same cut and size, with tokens and fact recall."""
    where, args = _filters(run_id=run_id, dataset=dataset)
    return con.execute(f"SELECT * FROM recorded_compactions {where} "
                       "ORDER BY dataset, seq, compaction, counter, strategy = 'agent' DESC, strategy", args).df()


def unit_costs(con: duckdb.DuckDBPyConnection, run_id: str, *, dataset: str | None = None,
               price_model: str | None = None) -> pd.DataFrame:
    """Per-turn units priced with prompt caching (the `unit_costs` view), in call order."""
    where, args = _filters(run_id=run_id, dataset=dataset, price_model=price_model)
    return con.execute(f"SELECT * FROM unit_costs {where} ORDER BY price_model, dataset, seq, unit", args).df()


def session_costs(con: duckdb.DuckDBPyConnection, run_id: str, *, dataset: str | None = None) -> pd.DataFrame:
    """What each session costs per strategy variant, window and price model: calls, tokens by how
    they are billed (uncached input, cache reads, cache writes, output) and dollars."""
    where, args = _filters(run_id=run_id, dataset=dataset)
    return con.execute(f"""
        SELECT dataset, seq, conversation_id, label, counter, "window", price_model, count(*) AS calls,
               sum(prompt_tokens) AS prompt_tokens, sum(input_tokens) AS input_tokens,
               sum(cache_read_tokens) AS cache_read_tokens, sum(cache_write_tokens) AS cache_write_tokens,
               sum(output_tokens) AS output_tokens, sum(summarizer_cost_usd) AS summarizer_cost_usd,
               sum(cost_usd) AS cost_usd
        FROM unit_costs {where} GROUP BY ALL ORDER BY price_model, dataset, seq, label, counter, "window" """, args).df()


def skips(con: duckdb.DuckDBPyConnection, run_id: str) -> pd.DataFrame:
    """Bad input records a run skipped, with the reason."""
    return con.execute('SELECT dataset, "where", reason FROM skips WHERE run_id = ? ORDER BY dataset, "where"',
                       [run_id]).df()


def _filters(**values: Any) -> tuple[str, list[Any]]:
    """A WHERE clause (always present, so callers can append ``AND ...``) for the non-None values."""
    clauses, args = ["TRUE"], []
    for column, value in values.items():
        if value is None:
            continue
        if column == "strategy":  # a name matches all its variants, a label just the one
            clauses.append("(strategy = ? OR label = ?)")
            args += [value, value]
        else:
            clauses.append(f'"{column}" = ?')  # quoted: "window" is a reserved word
            args.append(value)
    return "WHERE " + " AND ".join(clauses), args
