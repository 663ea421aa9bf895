"""The DuckDB store: migrations, views, bulk writes, queries and the LLM call cache."""

from __future__ import annotations

import json

import duckdb
import pyarrow as pa
import pytest

from ctxlab import store
from ctxlab.errors import CtxlabError
from ctxlab.store.schema import ROW_TABLES, arrow_schema

RESULTS_COLUMNS = {"run_id", "dataset", "conversation_id", "strategy", "params", "counter", "window", "mode",
                   "turn", "tokens_before", "tokens_after", "retained_ratio", "fits", "reference",
                   "reference_tokens_after", "fits_reference", "tool_pairs_intact", "fact_recall", "latency_ms",
                   "status", "error"}
ESTIMATOR_COLUMNS = {"run_id", "dataset", "conversation_id", "message_id", "role", "content_kind", "counter",
                     "reference", "estimated", "actual", "language", "chars", "error_pct"}


def columns(con, name: str) -> set[str]:
    return {r[0] for r in con.execute(f"DESCRIBE {name}").fetchall()}


def test_migrations_apply_once_and_in_order(tmp_path):
    db = tmp_path / "s.duckdb"
    with store.writing(db) as con:
        assert store.current_version(con) == store.LATEST
        first = con.execute("SELECT version, applied_at FROM schema_version ORDER BY version").fetchall()
    with store.writing(db) as con:  # reopening migrates nothing again
        assert con.execute("SELECT version, applied_at FROM schema_version ORDER BY version").fetchall() == first
        assert store.migrate(con) == store.LATEST
    assert [v for v, _ in first] == [n for n, _, _ in store.MIGRATIONS]


def test_views_have_the_documented_columns():
    con = store.connect(":memory:")
    assert RESULTS_COLUMNS <= columns(con, "results")
    assert ESTIMATOR_COLUMNS <= columns(con, "estimator_errors")


def test_read_only_open_needs_an_existing_store(tmp_path):
    with pytest.raises(CtxlabError, match="no ctxlab database"):
        store.connect(tmp_path / "missing.duckdb", read_only=True)


def test_a_locked_file_is_retried_then_reported(tmp_path):
    db = tmp_path / "locked.duckdb"
    store.connect(db).close()
    import subprocess
    import sys

    holder = subprocess.Popen([sys.executable, "-c", f"import duckdb,time; c=duckdb.connect({str(db)!r}); "
                               "print('ok', flush=True); time.sleep(30)"], stdout=subprocess.PIPE, text=True)
    try:
        assert holder.stdout.readline().strip() == "ok"
        with pytest.raises(CtxlabError, match="locked by another process"):
            store.connect(db, read_only=True, timeout=0.3)
    finally:
        holder.kill()
        holder.wait()
    with store.reading(db) as con:  # released: readers get in
        assert store.current_version(con) == store.LATEST


def _rows(run_id: str, n: int) -> dict[str, list[pa.Table]]:
    result_rows = [{"run_id": run_id, "dataset": "d", "seq": i, "unit": 0, "conversation_id": f"c{i}",
                    "strategy": "noop", "label": "noop", "params": "{}", "counter": "o200k_base", "window": 100,
                    "mode": "final", "turn": -1, "tokens_before": 200, "tokens_after": 50 + i % 100,
                    "retained_ratio": 0.5, "fits": True, "status": "ok", "tool_pairs_intact": True,
                    "latency_ms": 1.0, "fact_recall": 0.5} for i in range(n)]
    refs = [{"run_id": run_id, "dataset": "d", "seq": i, "unit": 0, "reference": ref, "reference_tokens_before": 200,
             "reference_tokens_after": 60, "fits_reference": ref == "o200k_base"}
            for i in range(n) for ref in ("o200k_base", "cl100k_base")]
    done = [{"run_id": run_id, "dataset": "d", "seq": i, "units": 1} for i in range(n)]

    def table(name, rows):
        schema = arrow_schema(ROW_TABLES[name])
        return pa.Table.from_pydict({f.name: [r.get(f.name) for r in rows] for f in schema}, schema=schema)

    return {"result_rows": [table("result_rows", result_rows)], "result_refs": [table("result_refs", refs)],
            "done": [table("done", done)]}


def test_bulk_write_and_queries():
    con = store.connect(":memory:")
    store.start_run(con, "r1", name="first", config={"sources": ["d"], "counters": ["o200k_base"]}, versions={},
                    fingerprints={})
    written = store.write_batch(con, _rows("r1", 50_000), skips=[("r1", "d", "f:1", "bad json")] * 2)
    assert written == {"result_rows": 50_000, "result_refs": 100_000, "done": 50_000, "skips": 1}
    # The same skip again (a resumed run reads the bad record again) is not recorded twice.
    assert store.write_batch(con, {}, skips=[("r1", "d", "f:1", "bad json")]) == {"skips": 0}
    store.finish_run(con, "r1", "finished", 1.5)
    run = store.runs(con).iloc[0]
    assert (run.status, run.conversations, run.units, run.skips) == ("finished", 50_000, 50_000, 1)
    assert len(store.results(con, "r1", reference="o200k_base")) == 50_000
    summary = store.strategy_summary(con, "r1")
    assert summary.loc[0, "units"] == 50_000
    assert summary.loc[0, "real_fit_o200k_base"] == 1.0 and summary.loc[0, "real_fit_cl100k_base"] == 0.0
    assert store.done_keys(con, "r1")["d"] == set(range(50_000))
    assert store.resolve_run(con, "first") == store.resolve_run(con, "r1") == "r1"
    with pytest.raises(CtxlabError, match="no run"):
        store.resolve_run(con, "nope")


def test_compare_runs_side_by_side():
    con = store.connect(":memory:")
    for run in ("a", "b"):
        store.start_run(con, run, name=run, config={}, versions={}, fingerprints={})
        store.write_batch(con, _rows(run, 10))
    df = store.compare_runs(con, "a", "b")
    assert len(df) == 1 and df.loc[0, "retained_ratio_delta"] == 0.0
    assert {"retained_ratio_a", "retained_ratio_b", "fit_rate_a"} <= set(df.columns)


def test_a_failed_batch_writes_nothing():
    con = store.connect(":memory:")
    rows = _rows("r", 5)
    rows["done"].append(pa.table({"run_id": ["r"], "dataset": ["d"], "seq": [0], "units": [1]}))  # duplicate key
    with pytest.raises(duckdb.Error):
        store.write_batch(con, rows)
    assert con.execute("SELECT count(*) FROM result_rows").fetchone()[0] == 0


def test_llm_cache_round_trip_without_secrets(tmp_path):
    cache = store.open_llm_cache(tmp_path / "llm.duckdb")
    record = {"key": "k1", "model": "gpt-x", "prompt_name": "structured", "input_hash": "h", "response": "sum",
              "input_tokens": 10, "output_tokens": 2, "cost_usd": 0.001, "latency_ms": 12.0,
              "params": {"temperature": 0, "api_key": "sk-secret", "headers": {"Authorization": "Bearer x"}}}
    assert store.get_llm_call(cache, "k1") is None
    store.put_llm_call(cache, record)
    got = store.get_llm_call(cache, "k1")
    assert got["response"] == "sum" and got["params"] == {"temperature": 0, "headers": {}}
    assert "sk-secret" not in json.dumps(got, default=str)
    store.put_llm_call(cache, {**record, "response": "newer"})  # same key replaces
    assert store.get_llm_call(cache, "k1")["response"] == "newer"
    run_db = store.connect(":memory:")  # a run database copies the calls of its run
    assert store.copy_llm_calls(run_db, cache.path, since="2000-01-01") == 1
    assert store.get_llm_call(run_db, "k1")["response"] == "newer"


def test_a_version_2_store_gains_the_recorded_compactions_cost_agreement_and_grounded_tables(tmp_path):
    """An older store (migrations 1 and 2 only) is migrated in place, its data kept."""
    from ctxlab.store.schema import MIGRATIONS

    db = tmp_path / "v2.duckdb"
    con = duckdb.connect(str(db))
    con.execute("CREATE TABLE schema_version (version INTEGER PRIMARY KEY, name VARCHAR, applied_at TIMESTAMP)")
    for number, name, apply in MIGRATIONS[:2]:
        apply(con)
        con.execute("INSERT INTO schema_version VALUES (?, ?, current_timestamp)", [number, name])
    con.execute("INSERT INTO skips VALUES ('r', 'd', 'x:1', 'bad')")
    con.close()
    with store.reading(db) as con:  # a reader (dashboard, `ctxlab runs`) migrates it first
        assert store.current_version(con) == store.LATEST
    with store.writing(db) as con:
        assert store.current_version(con) == store.LATEST
        assert {"cut_index", "strategy", "fact_recall", "summary", "error"} <= columns(con, "recorded_compactions")
        assert {"price_model", "cache_read_tokens", "cache_write_tokens", "cost_usd"} <= columns(con, "result_costs")
        assert {"call", "name_match", "arg_overlap", "text_answer", "cost_usd"} <= columns(con, "agreement_rows")
        assert {"run_id", "config", "sessions", "calls"} <= columns(con, "agreement_runs")
        assert store.unit_costs(con, "r").empty and store.session_costs(con, "r").empty
        assert {"needed_total", "needed_kept_in_context", "refetch_tokens", "instructions_lost"} <= (
            columns(con, "result_grounded") & columns(con, "results"))
        assert con.execute("SELECT count(*) FROM skips").fetchall()[0][0] == 1
        assert store.recorded_compactions(con, "r").empty


def test_a_deleted_and_recreated_store_is_migrated_again(tmp_path):
    """The file system may give a new file the inode of a deleted one; the new file must still get
    its tables (a bench or a test deleting its database between runs in one process)."""
    db = tmp_path / "again.duckdb"
    for _ in range(5):
        with store.writing(db) as con:
            assert store.current_version(con) == store.LATEST
            con.execute("INSERT INTO skips VALUES ('r', 'd', 'x:1', 'bad')")
        for path in (db, db.with_suffix(".duckdb.wal")):
            path.unlink(missing_ok=True)


def test_an_agreement_run_is_stored_whole_and_replaced_by_a_rerun():
    from ctxlab.store.schema import AGREEMENT_ROWS

    con = store.connect(":memory:")
    with pytest.raises(CtxlabError, match="no agreement runs yet"):
        store.agreement_rows(con)
    schema = arrow_schema(AGREEMENT_ROWS)
    rows = [{"run_id": "a1", "dataset": "d", "seq": s, "conversation_id": f"c{s}", "call": 2, "label": "noop",
             "name_match": True, "error": None if s else "boom"} for s in range(3)]
    table = pa.Table.from_pylist(rows, schema=schema)
    for _ in range(2):  # the same run again replaces its rows
        assert store.save_agreement_run(con, "a1", name="agree-8000", config={"model": "m", "window": 8000},
                                        versions={}, started_at="2026-01-01", status="finished", wall_s=1.0,
                                        rows=table) == 3
    assert len(store.agreement_rows(con, "agree-8000")) == 3
    run = store.agreement_runs(con).iloc[0]
    assert (run.sessions, run.calls, run.errors, run.model, run.window) == (3, 3, 1, "m", "8000")
    assert store.runs(con).empty
    with pytest.raises(CtxlabError, match="no agreement run 'nope'.*agreement runs: agree-8000"):
        store.agreement_rows(con, "nope")
