"""`ctxlab tune` on real sessions: each setting's numbers are those of `ctxlab recommend --strategy
<its spec>`, evaluations are runs in the store and a rerun reads them back, and the command prints
the front, the pick beside the default and the pick in the agent's own terms."""

from __future__ import annotations

import json
import math
import os
from pathlib import Path

import pytest
from typer.testing import CliRunner

from ctxlab import store
from ctxlab.analysis import frames
from ctxlab.analysis.recommend import FRONT_COLUMNS, frontier
from ctxlab.cli import app
from ctxlab.errors import CtxlabError, UnknownNameError
from ctxlab.strategies import get_strategy
from ctxlab.tune import Sessions, dimensions, evaluations_frame, knobs_for, setting, spec_text, tunable, tune
from ctxlab.tune.evaluate import MEASURES, Evaluator

REALLOGS = Path(os.environ.get("CTXLAB_REALLOGS") or Path(__file__).resolve().parents[2].parent / "shared" / "reallogs")
PRICE = "claude-sonnet-4-5"
# What the front table prints of a setting, all from `ctxlab.analysis.recommend.frontier`.
COMPARED = ("sessions", "calls", "tokens_sent", "refetch_tokens", "effective_tokens", "needed_recall", "needed_low",
            "needed_high", "in_context_recall", "non_regex_recall", "instruction_survival", "orphan_rate",
            "overflow_rate", "cost_usd", "effective_usd")


@pytest.fixture(scope="module")
def bundled() -> Sessions:
    return Sessions.load(["sample:agent_sessions"], limit=3)


def recommended_rows(sources: list[str], label: str, window: int, db: Path) -> dict:
    """`ctxlab recommend --strategy label` alone into its own database, and the row it printed from."""
    result = CliRunner().invoke(app, ["recommend", *sources, "--window", str(window), "--strategy", label,
                                      "--price-model", PRICE, "--workers", "0", "--db", str(db)],
                                env={"COLUMNS": "250"})
    assert result.exit_code == 0, result.output
    with store.reading(db) as con:
        run = store.resolve_run(con, None)
        costs = store.session_costs(con, run)
        front = frontier(frames.results(con, run, mode="per-turn"), "o200k_base", costs[costs["price_model"] == PRICE],
                         _input_price())
    assert list(front["label"]) == [label]
    return {"row": front.iloc[0].to_dict(), "output": result.output}


def _input_price() -> float:
    from ctxlab.cost import input_price

    return input_price(PRICE)


def same(a: object, b: object) -> bool:
    return (isinstance(a, float) and isinstance(b, float) and math.isnan(a) and math.isnan(b)) or a == b


@pytest.mark.slow
def test_every_front_setting_replayed_alone_by_recommend_gives_the_same_numbers(bundled, tmp_path):
    outcome = tune(bundled, "langchain_summarization", window=4000, price_model=PRICE, db=str(tmp_path / "t.duckdb"))
    table = evaluations_frame(outcome)
    front = table[table["on_front"]]
    assert len(front) >= 2
    for i, row in enumerate(front.itertuples()):
        replayed = recommended_rows(["sample:agent_sessions", "--limit", "3"], row.label, 4000,
                                    tmp_path / f"r{i}.duckdb")
        mine = table.loc[row.Index]
        assert {c: mine[c] for c in COMPARED} == pytest.approx({c: replayed["row"][c] for c in COMPARED}, rel=0,
                                                               abs=0, nan_ok=True), row.label
        # ...and as printed: recommend's needed recall cell is the tuner's.
        assert f"{100 * mine['needed_recall']:.1f}%" in replayed["output"]


@pytest.mark.slow
def test_on_real_logs_the_pi_front_replays_alone_to_the_same_numbers_and_its_snippet_is_pi_json(tmp_path):
    logs = REALLOGS / "claude_code"
    assert logs.is_dir(), f"the real agent logs are missing: {logs}"
    sessions = Sessions.load([str(logs)], limit=4)
    outcome = tune(sessions, "pi", window=64000, price_model=PRICE, knobs=["compaction.keepRecentTokens"],
                   db=str(tmp_path / "t.duckdb"))
    table = evaluations_frame(outcome)
    for i, row in enumerate(table[table["on_front"]].itertuples()):
        replayed = recommended_rows([str(logs), "--limit", "4"], row.label, 64000, tmp_path / f"r{i}.duckdb")["row"]
        assert all(same(table.loc[row.Index][c], replayed[c]) for c in COMPARED), row.label
    result = CliRunner().invoke(app, ["tune", str(logs), "--limit", "4", "--policy", "pi", "--window", "64000",
                                      "--price-model", PRICE, "--knob", "compaction.keepRecentTokens",
                                      "--db", str(tmp_path / "t.duckdb")], env={"COLUMNS": "250"})
    assert result.exit_code == 0, result.output
    assert "read back from the store" in result.output and "0 replayed now" in result.output
    lines = result.output.splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith("~/.pi/agent/settings.json")) + 1
    end = lines.index("}", start)
    snippet = json.loads("\n".join(lines[start:end + 1]))
    assert set(snippet["compaction"]) == {"enabled", "reserveTokens", "keepRecentTokens"}


def test_a_rerun_reads_every_setting_back_from_the_store(bundled, tmp_path):
    db = str(tmp_path / "t.duckdb")
    first = tune(bundled, "codex", window=4000, db=db)
    assert first.replayed == len(first.result.evaluations) == first.written and first.reused == 0
    again = tune(Sessions.load(["sample:agent_sessions"], limit=3), "codex", window=4000, db=db)
    assert again.replayed == 0 and again.reused == len(first.result.evaluations) and again.written == 0
    assert again.result.pick.row == first.result.pick.row
    assert [p.row for p in again.result.front] == [p.row for p in first.result.front]
    assert again.search_id == first.search_id
    with store.reading(db) as con:
        runs = store.runs(con)
        searches = store.tune_searches(con)
        evaluated = store.tune_evaluations(con, first.search_id)
        assert store.resolve_run(con, None) in set(runs["run_id"])
    assert len(runs) == len(first.result.evaluations) and set(runs["tuned"]) == {"codex"}
    assert len(searches) == 1 and searches.at[0, "window"] == 4000 and searches.at[0, "pick"] is not None
    assert list(evaluated["evaluation"]) == list(range(len(first.result.evaluations)))
    assert evaluated["is_default"].sum() == 1 and evaluated["picked"].sum() == 1
    assert evaluated.at[0, "knob_values"] == {"model_auto_compact_token_limit": 3600}  # the default: 90% of the window
    assert evaluated["cached"].all()  # the saved record is the rerun's


def test_the_newest_run_is_a_replay_when_the_store_also_holds_tuner_runs(bundled, tmp_path):
    from ctxlab.replay import ReplayConfig, replay

    db = str(tmp_path / "t.duckdb")
    summary = replay(ReplayConfig(["sample:chats"], ["noop"], (4000,), db=db, workers=0, limit=1, estimators=()))
    tune(bundled, "codex", window=4000, db=db)
    with store.reading(db) as con:
        assert store.resolve_run(con, None) == summary.run_id


def test_sessions_are_numbered_as_a_replay_numbers_them_and_named_by_content(tmp_path):
    path = tmp_path / "two.jsonl"
    record = {"messages": [{"role": "user", "content": "hi"}, {"role": "assistant", "content": "hello"}]}
    path.write_text("\n".join(json.dumps({**record, "id": f"c{i}"}) for i in range(2)) + "\n")
    sessions = Sessions.load([str(path), str(path)])
    assert [(i.dataset, i.seq) for i in sessions.items] == [("two", 0), ("two", 1), ("two#2", 0), ("two#2", 1)]
    relative = Sessions.load([os.path.relpath(path)])
    assert relative.scope("o200k_base", None) == Sessions.load([str(path)]).scope("o200k_base", None)
    assert relative.scope("o200k_base", None) != relative.scope("o200k_base", PRICE)
    assert sessions.calls == 4


def test_bad_records_stop_the_read_or_are_recorded_as_skips(tmp_path):
    path = tmp_path / "bad.jsonl"
    path.write_text('{"id": "a", "messages": "not a list"}\n')
    with pytest.raises(CtxlabError, match="bad.jsonl:1"):
        Sessions.load([str(path)])
    sessions = Sessions.load([str(path)], skip_invalid=True)
    assert not sessions.items and sessions.skips and sessions.skips[0].where.endswith("bad.jsonl:1")
    with pytest.raises(CtxlabError, match="no sessions"):
        tune(sessions, "pi", window=4000)


def test_a_strategy_without_knobs_is_refused_by_name(bundled):
    with pytest.raises(UnknownNameError, match="tunable preset 'compaction'"):
        tune(bundled, "compaction", window=4000)


@pytest.mark.parametrize("preset", tunable())
def test_every_grid_setting_is_a_strategy_spec_that_rebuilds_it(preset):
    for window in (8000, 200_000):
        if preset == "anthropic_compaction" and window < 50_000:
            continue  # not tunable there (tests/tune/test_live.py)
        dims = dimensions(knobs_for(preset), window)
        for i in range(5):
            candidate = setting(preset, window, {d.name: d.grid()[min(i, len(d.grid()) - 1)] for d in dims})
            text = spec_text(preset, candidate.params)
            assert get_strategy(text).spec == get_strategy(preset, **candidate.params).spec


def test_knob_names_never_collide_with_the_measures_columns():
    measured = {*FRONT_COLUMNS, "cost_usd", "refetch_usd", "effective_usd", "on_cost_front", "evaluation", "on_front",
                "ties", "default", "pick", "cached"}
    for entry in map(knobs_for, tunable()):
        assert not {k.name for k in entry.knobs} & measured, entry.preset


def test_the_evaluator_scores_every_measure_per_session(bundled):
    evaluator = Evaluator(bundled, window=4000, price_model=PRICE)
    scored = evaluator.evaluate("compaction")
    assert set(scored.samples) == set(MEASURES)
    assert all(len(samples) == 3 for samples in scored.samples.values())
    recall = scored.samples["needed_recall"]
    pooled = sum(s.value for s in recall) / sum(s.weight for s in recall)
    assert pooled == pytest.approx(scored.row["needed_recall"])
    assert evaluator.evaluate("compaction") is scored  # kept by key
    assert len(evaluator.pending) == 1 and set(evaluator.pending[evaluator.key("compaction")].tables) >= {
        "result_rows", "result_refs", "result_grounded", "result_costs", "done"}


def test_the_command_prints_the_front_the_pick_the_default_and_the_snippet(tmp_path):
    db = str(tmp_path / "t.duckdb")
    result = CliRunner().invoke(app, ["tune", "sample:agent_sessions", "--limit", "3", "--policy", "codex",
                                      "--window", "4000", "--db", db], env={"COLUMNS": "250"})
    assert result.exit_code == 0, result.output
    out = result.output
    assert "The front" in out and "pick: #" in out and "model_auto_compact_token_limit" in out
    assert "~/.codex/config.toml" in out and "names from" in out and "ctxlab recommend sample:agent_sessions" in out
    assert ("The pick beside the agent's default" in out) != ("It is the agent's default." in out)
    with store.reading(db) as con:
        assert len(store.tune_searches(con)) == 1


def test_the_command_names_an_unknown_policy_or_knob():
    runner = CliRunner()
    result = runner.invoke(app, ["tune", "sample:chats", "--policy", "nope", "--window", "4000"])
    assert result.exit_code == 1 and "nope" in result.output and "pi" in result.output
    result = runner.invoke(app, ["tune", "sample:chats", "--policy", "pi", "--window", "4000", "--knob", "zz"])
    assert result.exit_code == 1 and "zz" in result.output and "compaction.reserveTokens" in result.output


def test_the_command_says_what_the_window_leaves_out(tmp_path):
    runner = CliRunner()
    result = runner.invoke(app, ["tune", "sample:agent_sessions", "--limit", "1", "--policy", "anthropic_compaction",
                                 "--window", "8000", "--db", str(tmp_path / "a.duckdb")], env={"COLUMNS": "250"})
    assert result.exit_code == 1 and "cannot be tuned at a window of 8,000 tokens" in result.output
    assert "the API refuses less than 50,000" in result.output
    result = runner.invoke(app, ["tune", "sample:agent_sessions", "--limit", "1", "--policy",
                                 "anthropic_context_editing", "--window", "4000", "--trials", "3",
                                 "--db", str(tmp_path / "b.duckdb")], env={"COLUMNS": "250"})
    assert result.exit_code == 0, result.output
    assert "Searched trigger x keep with a grid" in result.output  # not the knobs the search leaves alone
    assert "Not searched at this window: clear_at_least: nothing to search" in result.output
    result = runner.invoke(app, ["tune", "sample:chats", "--policy", "claude_code_microcompact", "--window", "4000"])
    assert result.exit_code == 1 and "remote config" in result.output
