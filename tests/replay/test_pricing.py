"""Per-turn replay priced with prompt caching: rows per unit and model, chains per session, and the
numbers `ctxlab.cost` gives for the same prompts."""

from __future__ import annotations

import pytest

from ctxlab import store
from ctxlab.cost import Prompt, price_model, price_prompts
from ctxlab.datasets import load_conversations
from ctxlab.errors import CtxlabError
from ctxlab.replay import ReplayConfig, replay
from ctxlab.replay.plan import turn_indices
from ctxlab.strategies import get_strategy
from ctxlab.tokens import get_counter
from tests.replay.helpers import agent_record, write_jsonl

MODELS = ("claude-sonnet-4-5", "gpt-5")


def priced_run(tmp_path, strategies=("noop", "observation_masking:attention_window=1"), **kw):
    source = write_jsonl(tmp_path / "in.jsonl", [agent_record(i) for i in range(2)])
    db = str(tmp_path / "p.duckdb")
    summary = replay(ReplayConfig((source,), strategies, (100_000,), modes="both", db=db, workers=0,
                                  estimators=(), quality=False, price_models=MODELS, **kw))
    return source, db, summary


def test_every_per_turn_unit_is_priced_by_every_model_and_final_units_are_not(tmp_path):
    _, db, summary = priced_run(tmp_path)
    with store.reading(db) as con:
        units = con.execute("SELECT count(*) FROM result_rows WHERE mode = 'per-turn'").fetchall()[0][0]
        priced = con.execute("SELECT mode, count(*) FROM unit_costs GROUP BY ALL").fetchall()
        sessions = store.session_costs(con, summary.run_id)
    assert priced == [("per-turn", units * len(MODELS))]
    assert set(sessions["price_model"]) == set(MODELS) and len(sessions) == 2 * 2 * len(MODELS)
    parts = sessions["input_tokens"] + sessions["cache_read_tokens"] + sessions["cache_write_tokens"]
    assert (parts == sessions["prompt_tokens"]).all()


def test_stored_costs_equal_pricing_the_same_prompts_directly(tmp_path):
    source, db, summary = priced_run(tmp_path)
    conv = next(load_conversations(source))
    strategy, counter = get_strategy("observation_masking:attention_window=1"), "o200k_base"
    prompts, live, consumed = [], (), 0
    for t in turn_indices(conv):  # the replay's per-turn loop: what it sent last time plus what came since
        result = strategy.compress((*live, *conv.messages[consumed:t]), 100_000, counter=counter, tools=conv.tools)
        live, consumed = result.messages, t
        prompts.append(Prompt(result.messages, conv.tools, output_tokens=get_counter(counter).count_message(
            conv.messages[t])))
    expected = price_prompts(price_model("claude-sonnet-4-5"), counter, prompts).total
    with store.reading(db) as con:
        row = store.session_costs(con, summary.run_id).query(
            "seq == 0 and label == 'observation_masking:attention_window=1' and price_model == 'claude-sonnet-4-5'")
    assert row["cost_usd"].iloc[0] == pytest.approx(expected.cost_usd)
    assert row["cache_write_tokens"].iloc[0] == expected.cache_write_tokens
    assert row["cache_read_tokens"].iloc[0] == expected.cache_read_tokens


def test_masking_that_moves_every_turn_writes_more_cache_than_append_only(tmp_path):
    db = str(tmp_path / "m.duckdb")
    summary = replay(ReplayConfig(("sample:agent_sessions",), ("noop", "observation_masking:attention_window=1"),
                                  (200_000,), modes="per-turn", db=db, workers=0, limit=2, estimators=(),
                                  quality=False, price_models=MODELS))
    with store.reading(db) as con:
        sessions = store.session_costs(con, summary.run_id)
    anthropic = sessions[sessions["price_model"] == "claude-sonnet-4-5"].groupby("label")[
        ["cache_write_tokens", "prompt_tokens"]].sum()
    masking = anthropic.loc["observation_masking:attention_window=1"]
    assert masking["prompt_tokens"] < anthropic.loc["noop", "prompt_tokens"]  # fewer tokens sent...
    assert masking["cache_write_tokens"] > anthropic.loc["noop", "cache_write_tokens"]  # ...more rewritten


def test_pricing_final_mode_alone_is_refused(tmp_path):
    """A final unit is one call: with no call before it there is no cache to price, so it is refused
    rather than stored with no cost rows."""
    source = write_jsonl(tmp_path / "in.jsonl", [agent_record(0)])
    with pytest.raises(CtxlabError, match="pricing needs per-turn calls"):
        ReplayConfig((source,), ("noop",), (1000,), db=str(tmp_path / "x.duckdb"), price_models=MODELS)
    assert ReplayConfig((source,), ("noop",), (1000,), modes="both", price_models=MODELS).price_models == MODELS


def test_an_unknown_price_model_stops_before_any_work(tmp_path):
    source = write_jsonl(tmp_path / "in.jsonl", [agent_record(0)])
    with pytest.raises(CtxlabError, match="claude-sonnet-4-5"):
        replay(ReplayConfig((source,), ("noop",), (1000,), db=str(tmp_path / "x.duckdb"), workers=0,
                            modes="per-turn", price_models=("claude-sonet-4-5",)))
    assert not (tmp_path / "x.duckdb").exists()  # nothing was written


def test_pricing_is_part_of_the_run_identity_only_when_asked(tmp_path):
    source = write_jsonl(tmp_path / "in.jsonl", [agent_record(0)])
    db = str(tmp_path / "i.duckdb")
    plain = replay(ReplayConfig((source,), ("noop",), (1000,), db=db, workers=0, estimators=(), modes="per-turn"))
    priced = replay(ReplayConfig((source,), ("noop",), (1000,), db=db, workers=0, estimators=(), modes="per-turn",
                                 price_models=("gpt-5",)))
    assert plain.run_id != priced.run_id
