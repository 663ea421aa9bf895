"""Replaying agent logs: provider-referenced rows land in `estimator_errors` (for every estimator
and every reference tokenizer), and recorded compactions in their own table."""

from __future__ import annotations

from pathlib import Path

from ctxlab import store
from ctxlab.analysis import frames
from ctxlab.analysis import logs as L
from ctxlab.metrics.provider import provider_deltas
from ctxlab.replay import DEFAULT_ESTIMATORS, ReplayConfig, replay
from tests.provider_logs import MODEL, billed_log, compacted_log, true_tokens, write_logs

PROVIDER = f"provider:{MODEL}"


def test_provider_rows_land_in_the_estimator_errors_view(logs_db: Path):  # noqa: F811
    with store.reading(logs_db) as con:
        run = store.resolve_run(con, None)
        rows = con.execute("SELECT * FROM estimator_errors WHERE reference = ? ORDER BY seq, message_id, counter",
                           [PROVIDER]).df()
        summary = store.estimator_summary(con, run, by=("counter", "reference"))
    logs = [billed_log(0), billed_log(1), compacted_log(2), compacted_log(3)]
    usable = [(seq, d) for seq, c in enumerate(logs) for d in provider_deltas(c) if d.skipped is None]
    # Every estimator of the run and the reference tokenizer itself, once per usable delta.
    counters = {*DEFAULT_ESTIMATORS, "o200k_base"}
    assert set(rows["counter"]) == counters and len(rows) == len(counters) * len(usable)
    for seq, d in usable:
        mine = rows[(rows["seq"] == seq) & (rows["message_id"] == d.message_id)]
        assert set(mine["actual"]) == {sum(true_tokens(m) for m in logs[seq].messages[d.start:d.end])}
        assert set(mine["role"]) == {d.roles} and (mine["error"] == mine["estimated"] - mine["actual"]).all()
    provider = summary[summary["reference"] == PROVIDER].set_index("counter")
    assert set(provider.index) == counters and provider.loc["o200k_base", "underestimate_share"] > 0.9
    assert (summary["reference"] == "o200k_base").any()  # the per-message rows are still there


def test_analysis_puts_the_provider_beside_the_tokenizers(logs_db: Path):  # noqa: F811
    with store.reading(logs_db) as con:
        rows = frames.estimator_rows(con, store.resolve_run(con, None))
    refs = L.order_references(rows["reference"].unique())
    assert refs == ["o200k_base", PROVIDER] and L.default_reference(refs) == "o200k_base" and L.has_provider(refs)
    matrix = L.reference_matrix(rows, value="mape_pct")
    assert list(matrix.columns) == refs and matrix.loc["chars4", PROVIDER] > matrix.loc["calibrated", PROVIDER]
    assert matrix.loc["o200k_base"].isna()["o200k_base"]  # a tokenizer is never its own estimator


def test_recorded_compactions_are_stored_per_counter(logs_db: Path):  # noqa: F811
    with store.reading(logs_db) as con:
        recorded = store.recorded_compactions(con, store.resolve_run(con, None))
    assert list(recorded["seq"].unique()) == [2, 3]
    assert list(recorded["strategy"][:3]) == ["agent", "compaction", "sliding_window"]
    assert set(recorded["counter"]) == {"o200k_base"} and recorded["error"].isna().all()
    agent = recorded[recorded["strategy"] == "agent"]
    assert (agent["summary"] == [compacted_log(s).meta["compactions"][0]["summary"] for s in (2, 3)]).all()
    summary = L.compaction_summary(recorded)
    assert list(summary["strategy"]) == ["agent", "compaction", "sliding_window"]
    assert (summary["compactions"] == 2).all()
    side = L.compaction_side_by_side(recorded)
    assert len(side) == 2 and {"agent recall", "compaction tokens", "sliding_window recall"} <= set(side.columns)


def test_no_estimators_and_no_quality_leave_the_log_rows_out(tmp_path: Path):
    source = write_logs(tmp_path / "logs.jsonl", [compacted_log(4)])
    db = str(tmp_path / "bare.duckdb")
    replay(ReplayConfig([source], ["sliding_window"], [4000], db=db, workers=0, estimators=(), quality=False))
    with store.reading(db) as con:
        run = store.resolve_run(con, None)
        assert store.recorded_compactions(con, run).empty
        assert con.execute("SELECT count(*) FROM estimator_rows").fetchall()[0][0] == 0
