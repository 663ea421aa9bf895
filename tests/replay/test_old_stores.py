"""Stores written before the window rename (issue 21): migration 7 renames ``budget`` to ``window``
in place, keeps every row, and the runs in them still resume and compare; run ids are unchanged."""

from __future__ import annotations

import json

import duckdb
import pytest
from typer.testing import CliRunner

from ctxlab import store
from ctxlab.analysis import frames
from ctxlab.cli import app
from ctxlab.replay import ReplayConfig, replay
from ctxlab.replay.plan import resolve_entries, run_identity
from ctxlab.store.schema import BEFORE_V7, LIMIT_COLUMNS, MIGRATIONS, ROW_TABLES
from tests.replay.helpers import agent_record, write_jsonl

RENAMED = ("result_rows", "summaries", "recorded_compactions", "agreement_rows")
LATER = tuple(name for name, _ in LIMIT_COLUMNS)  # columns added after version 6 (NULL in older rows)
TABLES = (*ROW_TABLES, "runs", "skips")


def config(source: str, db: str, windows: tuple[int, ...], limit: int) -> ReplayConfig:
    return ReplayConfig((source,), ("noop", "compaction"), windows, modes="both", db=db, workers=0, limit=limit,
                        estimators=("chars4",), price_models=("gpt-5",))


def make_old(new_db: str, old_db: str) -> None:
    """`new_db`'s runs and rows in a store as ctxlab wrote it before migration 7: built by migrations
    1-6, ``budget`` columns, run configs keying the windows ``budgets``; plus an agreement row and a
    recorded compaction, which a replay of these sessions does not write."""
    con = duckdb.connect(old_db)
    con.execute("CREATE TABLE schema_version (version INTEGER PRIMARY KEY, name VARCHAR, applied_at TIMESTAMP)")
    for number, name, apply in MIGRATIONS[:6]:
        apply(con)
        con.execute("INSERT INTO schema_version VALUES (?, ?, current_timestamp)", [number, name])
    con.execute(f"ATTACH '{new_db}' AS new (READ_ONLY)")
    for table in TABLES:
        renames = ", ".join(f'"{n}" AS "{o}"' for n, o in BEFORE_V7.items() if n in dict(ROW_TABLES.get(table, ())))
        later = [f'"{c}"' for c in LATER if c in dict(ROW_TABLES.get(table, ()))]
        exclude = f"EXCLUDE ({', '.join(later)})" if later else ""
        con.execute(f"INSERT INTO {table} BY NAME SELECT * {exclude} {f'RENAME ({renames})' if renames else ''} "
                    f"FROM new.{table}")
    for run_id, text in con.execute("SELECT run_id, config FROM runs").fetchall():
        old = json.loads(text)
        old["budgets"] = old.pop("windows")
        con.execute("UPDATE runs SET config = ? WHERE run_id = ?", [json.dumps(old), run_id])
    con.execute("INSERT INTO agreement_rows (run_id, dataset, seq, conversation_id, call, strategy, label, counter, "
                "budget, model) VALUES ('g', 'd', 0, 'c', 1, 'noop', 'noop', 'o200k_base', 8000, 'm')")
    con.execute("INSERT INTO recorded_compactions (run_id, dataset, seq, conversation_id, compaction, strategy, "
                "budget) VALUES ('g', 'd', 0, 'c', 0, 'noop', 1234)")
    con.close()


def rows(db: str, table: str, where: str = "", skip: tuple[str, ...] = ()) -> list[tuple]:
    """A table's rows in a stable order, without the columns in `skip` (timings)."""
    with store.reading(db) as con:
        columns = ", ".join(f'"{r[0]}"' for r in con.execute(f"DESCRIBE {table}").fetchall() if r[0] not in skip)
        return con.execute(f"SELECT {columns} FROM {table} {where} ORDER BY ALL").fetchall()


@pytest.fixture
def old_store(tmp_path) -> tuple[str, str, str]:
    """(source, db written by today's ctxlab, the same runs in a version-6 store). Run ``a`` stopped
    after one of two conversations (as an interrupted replay leaves it); run ``b`` is complete."""
    source = write_jsonl(tmp_path / "in.jsonl", [agent_record(i) for i in range(2)])
    new_db, old_db = str(tmp_path / "new.duckdb"), str(tmp_path / "old.duckdb")
    replay(config(source, new_db, (300, 100_000), limit=1))
    replay(config(source, new_db, (600,), limit=2))
    make_old(new_db, old_db)
    return source, new_db, old_db


def test_a_version_6_store_migrates_and_keeps_every_row(old_store):
    _, new_db, old_db = old_store
    with store.writing(old_db) as con:
        assert store.current_version(con) == store.LATEST >= 7
        for table in (*RENAMED, "results", "unit_costs"):
            columns = {r[0] for r in con.execute(f"DESCRIBE {table}").fetchall()}
            assert "window" in columns and "budget" not in columns, table
        assert con.execute("SELECT count(*) FROM unit_costs").fetchall()[0][0] > 0
    for table in (*ROW_TABLES, "results", "unit_costs"):
        assert rows(old_db, table, "WHERE run_id <> 'g'", LATER) == rows(new_db, table, "", LATER), table
    with store.reading(old_db) as con:
        assert con.execute("SELECT a.window FROM agreement_rows a").fetchall() == [(8000,)]
        assert con.execute('SELECT "window" FROM recorded_compactions').fetchall() == [(1234,)]


def test_an_old_run_resumes_and_compares_after_the_migration(old_store, tmp_path):
    source, new_db, old_db = old_store
    with store.reading(old_db) as con:
        a, b = store.runs(con).sort_values("started_at")["run_id"]
        assert sorted(store.runs(con)["windows"]) == ["[300,100000]", "[600]"]  # from the old key "budgets"
        assert frames.run_info(con, a)["config"]["windows"] == [300, 100_000]
    resumed = replay(config(source, old_db, (300, 100_000), limit=2))
    assert resumed.run_id == a and resumed.resumed == 1 and resumed.conversations == 1
    fresh_db = str(tmp_path / "fresh.duckdb")
    assert replay(config(source, fresh_db, (300, 100_000), limit=2)).run_id == a
    for table in ("result_rows", "result_refs", "summaries", "result_costs", "done"):
        timings = ("latency_ms", "llm_latency_ms")
        assert rows(old_db, table, f"WHERE run_id = '{a}'", timings) == rows(fresh_db, table, "", timings), table
    with store.reading(old_db) as con:
        compared = store.compare_runs(con, a, b)
    assert set(compared["window"]) == {300, 600, 100_000}
    assert compared.loc[compared["window"] == 600, "retained_ratio_a"].isna().all()
    assert compared.loc[compared["window"] == 300, "retained_ratio_a"].notna().all()
    for args in (["compare", a, b], ["sql", 'SELECT r.window, count(*) AS n FROM results r GROUP BY ALL']):
        result = CliRunner().invoke(app, [*args, "--db", old_db], env={"COLUMNS": "200"})
        assert result.exit_code == 0 and "100000" in result.output.replace(",", ""), result.output


def test_run_ids_are_the_ones_ctxlab_gave_before_the_rename():
    """Digests computed by ctxlab before issue 21 renamed ``budgets`` to ``windows``: the run id keys the
    windows ``budgets`` still, so running the same command again resumes a stored run."""
    cases = [(ReplayConfig(("sample:chats",), ("noop",), (2000, 8000), modes="both"), {"sample:chats": "f00d"},
              ("chars4",), "6e218781d06a"),
             (ReplayConfig(("a.jsonl",), ("noop",), (500,), counters=("seed",), modes="per-turn",
                           price_models=("gpt-5",)), {"a.jsonl": "beef"}, (), "aa599e7c0c4b")]
    for replay_config, fingerprints, estimators, expected in cases:
        entries = resolve_entries(replay_config.strategies, replay_config.counters)
        run_id, stored = run_identity(replay_config, entries, fingerprints, estimators)
        assert run_id == expected
        assert tuple(stored["windows"]) == replay_config.windows and "budgets" not in stored
