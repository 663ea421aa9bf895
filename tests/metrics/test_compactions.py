"""Recorded compactions: the agent's own summary scored beside ctxlab's strategies at the same cut,
at the same size, against the same facts."""

from __future__ import annotations

import json
from dataclasses import dataclass

import pytest

from ctxlab.messages import Conversation
from ctxlab.metrics.compactions import recorded_compaction_rows, recorded_compactions
from ctxlab.metrics.facts import extract_facts
from ctxlab.strategies import BaseStrategy, Plan, Request
from ctxlab.tokens import get_counter
from tests.provider_logs import agent_summary, compacted_log


@dataclass(frozen=True)
class Failing(BaseStrategy):
    def plan(self, request: Request) -> Plan:
        raise RuntimeError("cannot compress this")


def with_compactions(conversation: Conversation, compactions: list) -> Conversation:
    return Conversation(conversation.id, conversation.messages, meta={**conversation.meta, "compactions": compactions})


def test_the_agent_and_each_strategy_are_scored_at_the_same_cut_and_size():
    conversation = compacted_log(2)
    record = recorded_compactions(conversation)[0]
    rows = recorded_compaction_rows(conversation, "o200k_base")
    assert [r.strategy for r in rows] == ["agent", "compaction", "sliding_window"]
    agent, compaction, window = rows
    o200k = get_counter("o200k_base")
    assert record.index == record.at  # Claude Code style: the summary replaces everything
    region = conversation.messages[:record.at]
    assert {r.tokens_before for r in rows} == {o200k.count_messages(region)}
    assert agent.summary == record.summary and agent.summary_tokens == o200k.count(record.summary)
    assert agent.recorded_tokens_before == record.tokens_before and agent.error is None
    for row in (compaction, window):
        assert row.window == agent.tokens_after and row.counter == "o200k_base"
        assert row.fits and row.tokens_after <= row.window
    assert compaction.summary and compaction.summary_tokens == o200k.count(compaction.summary)
    assert window.summary is None
    # Every candidate is scored against the same facts: those of the whole replaced region.
    assert len({r.facts_total for r in rows}) == 1 and agent.facts_total > 0
    for row in rows:
        assert row.fact_recall == pytest.approx(row.facts_kept / row.facts_total)
        assert len(json.loads(row.facts_missing)) == min(50, row.facts_total - row.facts_kept)


def test_an_agent_that_keeps_recent_messages_is_scored_with_them():
    conversation = compacted_log(2, keep=3)
    record = recorded_compactions(conversation)[0]
    assert record.at == record.index + 3
    o200k = get_counter("o200k_base")
    kept = conversation.messages[record.index:record.at]
    rows = recorded_compaction_rows(conversation, o200k)
    agent = rows[0]
    assert (agent.cut_index, agent.at_index) == (record.index, record.at)
    assert agent.tokens_before == o200k.count_messages(conversation.messages[:record.at])
    assert agent.tokens_after > agent.summary_tokens + sum(o200k.count_message(m) for m in kept)
    assert all(r.window == agent.tokens_after for r in rows[1:])
    summary_only = recorded_compaction_rows(
        with_compactions(conversation, [{**conversation.meta["compactions"][0], "index": record.at}]), o200k, ())[0]
    assert summary_only.facts_total == agent.facts_total and summary_only.facts_kept < agent.facts_kept


def test_a_summary_with_more_of_the_region_facts_recalls_more():
    conversation = compacted_log(3)
    cut = conversation.meta["compactions"][0]["index"]
    rich = agent_summary(conversation.messages[:cut])
    empty = "We talked for a while and made progress."

    def agent_recall(summary: str) -> tuple[float, int]:
        compaction = {"index": cut, "summary": summary, "tokens_before": 1}
        row = recorded_compaction_rows(with_compactions(conversation, [compaction]), strategies=())[0]
        return row.fact_recall, row.facts_kept

    assert agent_recall(empty) == (0.0, 0)
    recall, kept = agent_recall(rich)
    assert recall > 0 and kept >= len([f for f in extract_facts(rich) if "src/" in f])


def test_bad_records_and_failing_strategies_become_rows_with_an_error():
    conversation = compacted_log(2)
    good = conversation.meta["compactions"][0]
    bad = [{"index": 0, "summary": "x"}, {"index": 10**6, "summary": "x"}, {"index": 5, "summary": ""}, "junk"]
    rows = recorded_compaction_rows(with_compactions(conversation, [good, *bad]), "chars4",
                                    strategies=["sliding_window", Failing()])
    assert [(r.compaction, r.strategy) for r in rows] == [
        (0, "agent"), (0, "sliding_window"), (0, "Failing"), (1, "agent"), (2, "agent"), (3, "agent"), (4, "agent")]
    assert rows[2].error == "RuntimeError: cannot compress this"
    assert all("no usable index, at or summary" in r.error for r in rows[3:])
    assert {r.counter for r in rows} == {"chars4"}
    assert recorded_compaction_rows(Conversation("c", conversation.messages)) == []


def test_messages_the_agent_carried_over_are_part_of_its_context():
    """Codex keeps recent user messages beside its summary (`kept_messages`, from the replacement
    history): they count in the agent's context size and recall."""
    conversation = compacted_log(2)
    record = conversation.meta["compactions"][0]
    kept = [{"role": "user", "content": m.text} for m in conversation.messages[:record["index"]] if m.role == "user"]
    o200k = get_counter("o200k_base")
    plain = recorded_compaction_rows(conversation, o200k, ())[0]
    carried = recorded_compaction_rows(with_compactions(conversation, [{**record, "kept_messages": kept}]), o200k, ())[0]
    extra = sum(o200k.count_message(m) for m in recorded_compactions(
        with_compactions(conversation, [{**record, "kept_messages": kept}]))[0].kept)
    assert kept and carried.tokens_after == plain.tokens_after + extra
    assert carried.facts_total == plain.facts_total and carried.facts_kept >= plain.facts_kept
    malformed = recorded_compactions(with_compactions(conversation, [{**record, "kept_messages": [1, {"x": 2}]}]))
    assert malformed[0].kept == ()
