"""Every recorded compaction of the shared real logs graded by what came after it, beside each
summarizing preset at the same call; the agent's needed recall checked against an independent
computation that shares no code with ctxlab's grader (plain string search over the messages)."""

from __future__ import annotations

import json
import re

import pytest

from ctxlab.datasets import load_conversations
from ctxlab.messages import Conversation, Message
from ctxlab.metrics.compactions import recorded_compactions
from ctxlab.replay.compaction_grading import AGENT, SUMMARIZING, StandinCall, agent_context, grade_compactions
from ctxlab.strategies import get_strategy
from ctxlab.tokens import get_counter
from tests.cost.conftest import REALLOGS
from tests.provider_logs import compacted_log

O200K = get_counter("o200k_base")
LOGS = ("claude_code/4d5611e5-241a-462a-8d15-5122611a9569.jsonl", "claude_code/fa812bfe-b295-4cca-9c2f-fdf01028cb46.jsonl",
        "pi/session.jsonl")


@pytest.fixture(scope="module")
def graded() -> dict[str, list]:
    return {c.id[:8]: (c, grade_compactions(c, O200K)) for log in LOGS for c in load_conversations(REALLOGS / log)}


# --- the independent computation: docs/quality.md's definitions, written again from scratch ---
_RUN = re.compile(r"[A-Za-z0-9_./:@#=-]+")


def _specific(text: str) -> list[str]:
    out = []
    for run in _RUN.findall(text):
        run = run.rstrip(".:=")
        if (len(run) >= 5 and re.search(r"[A-Za-z0-9]", run)
                and (re.search(r"\d", run) or re.search(r"[/._:-]", run) or re.search(r"[a-z0-9][A-Z]", run))):
            out.append(run)
    return list(dict.fromkeys(out))


def _values(raw: str) -> list[str]:
    try:
        value = json.loads(raw)
    except ValueError:
        return [raw]
    stack, out = [value], []
    while stack:
        v = stack.pop()
        if isinstance(v, str):
            out.append(v)
        elif isinstance(v, dict):
            stack += list(v.values())
        elif isinstance(v, list):
            stack += v
    return out


def _searchable(m: Message) -> str:
    parts = [m.text] + [p for c in m.tool_calls for p in (c.name, c.arguments, *_values(c.arguments))]
    return " ".join(" ".join(parts).split())


def _action(m: Message) -> str:
    return "\n".join([m.text, *(v for c in m.tool_calls for v in _values(c.arguments))])


def independent_recall(conv: Conversation, index: int, at: int, stop: int, context: list[Message]) -> float | None:
    texts = [_searchable(m) for m in conv.messages]
    kept = " ".join(_searchable(m) for m in context)
    needed = held = 0
    for t in range(max(at, 1), stop):
        if conv.messages[t].role != "assistant":
            continue
        for s in _specific(_action(conv.messages[t])):
            if any(s in x for x in texts[:index]) and not any(s in x for x in texts[index:t]):
                needed += 1
                held += s in kept
    return held / needed if needed else None


def test_agent_rows_match_an_independent_computation_within_five_points(graded):
    checked = 0
    for conv, rows in graded.values():
        records = recorded_compactions(conv)
        for row in (g.row for g in rows if g.row.candidate == AGENT):
            record = records[row.compaction]
            stop = len(conv.messages)
            mine = independent_recall(conv, row.index, row.at, stop, list(agent_context(record, conv.messages)))
            if row.needed_recall is None:
                assert mine is None
                continue
            assert abs(mine - row.needed_recall) <= 0.05, (conv.id, mine, row.needed_recall)
            checked += 1
    assert checked == 2  # the two Claude Code compactions; pi's compacted after its last call


def test_every_summarizing_preset_is_graded_at_every_compaction(graded):
    for conv, rows in graded.values():
        by = {g.row.candidate: g.row for g in rows}
        assert list(by) == [AGENT, *SUMMARIZING]
        for name, row in by.items():
            assert row.error is None, (conv.id, name, row.error)
            assert (row.index, row.at, row.calls, row.needed) == (by[AGENT].index, by[AGENT].at, by[AGENT].calls,
                                                                  by[AGENT].needed)
            assert row.summary_tokens > 0 and row.context_tokens > 0
            assert (row.refetch_observed_tokens is None) == (name != AGENT)
    cc, _ = graded["4d5611e5"]
    agent = next(g.row for g in graded["4d5611e5"][1] if g.row.candidate == AGENT)
    assert (agent.agent, agent.trigger, agent.index, agent.at, agent.needed) == ("claude_code", "auto", 135, 135, 37)
    assert agent.refetch_observed_calls > 0 and agent.refetch_observed_tokens > agent.refetch_model_tokens
    pi = next(g.row for g in graded["5fd1e58c"][1] if g.row.candidate == AGENT)
    assert (pi.agent, pi.calls, pi.needed, pi.needed_recall) == ("pi", 0, 0, None)  # compacted after its last call


def test_the_calibrated_stand_in_of_the_agents_own_preset_is_near_the_real_summaries(graded):
    """Fitted on these very compactions (docs/quality.md gives the leave-one-out figures): a guard
    that the calibration stays in place, not evidence that it generalizes."""
    kept = needed = agent_kept = 0
    for conv, rows in graded.values():
        by = {g.row.candidate: g.row for g in rows}
        own = by[conv.meta["format"]]
        assert abs(own.summary_tokens / by[AGENT].summary_tokens - 1) <= 0.30, (conv.id, own.summary_tokens)
        kept, needed, agent_kept = kept + own.needed_kept, needed + own.needed, agent_kept + by[AGENT].needed_kept
    assert abs(kept - agent_kept) / needed <= 0.10


def test_a_preset_is_run_where_it_summarizes():
    conv = compacted_log(3)
    record = recorded_compactions(conv)[0]
    history = conv.messages[:record.at]
    at = StandinCall(get_strategy("claude_code"), tuple(history), O200K, (), ())
    assert at.at(1_000_000) is None  # far under the threshold: no summary
    window, result = at.summarized(1_000_000)
    assert result.summary and at.at(window) is not None and at.at(window + 1) is None  # the largest that does
    assert window < 1_000_000 and at.summarized(window)[0] == window
    never = StandinCall(get_strategy("pi"), tuple(history[:3]), O200K, (), ())  # all within pi's kept 20k
    assert never.summarized(1_000_000) is None


def test_a_log_without_compactions_or_with_a_bad_record():
    assert grade_compactions(Conversation("plain", (Message("user", "hi"),))) == []
    conv = compacted_log(4)
    broken = Conversation(conv.id, conv.messages, meta={**conv.meta, "compactions": [{"index": "x", "summary": ""}]})
    (row,) = [g.row for g in grade_compactions(broken, O200K, ("claude_code",))]
    assert row.candidate == AGENT and row.error and row.needed is None


def test_carried_over_messages_and_a_second_compaction():
    """Codex carries recent user messages beside its summary (`kept_messages`): the agent's context
    holds them. A second compaction ends the first's segment, and its stand-ins get the agent's
    context after the first plus what followed (the history the agent really summarized)."""
    conv = compacted_log(5, rounds=16)
    first = conv.meta["compactions"][0]
    users = [m.text for m in conv.messages[:first["index"]] if m.role == "user"]
    at2 = next(i for i in range(first["at"] + 6, len(conv.messages)) if conv.messages[i].role == "user")
    records = [{**first, "kept_messages": [{"role": "user", "content": u} for u in users]},
               {"index": at2, "at": at2, "summary": "Goal: keep going.", "trigger": "manual"}]
    both = Conversation(conv.id, conv.messages, meta={**conv.meta, "format": "codex", "compactions": records})
    rows = [g.row for g in grade_compactions(both, O200K, ("codex",))]
    assert [(r.compaction, r.candidate) for r in rows] == [(0, AGENT), (0, "codex"), (1, AGENT), (1, "codex")]
    assert all(r.error is None for r in rows), rows
    one, two = rows[0], rows[2]
    assert (one.agent, two.trigger) == ("codex", "manual")
    plain = next(g.row for g in grade_compactions(Conversation(conv.id, conv.messages, meta={
        **conv.meta, "compactions": [first, records[1]]}), O200K, ()) if g.row.compaction == 0)
    assert one.context_tokens > plain.context_tokens and one.needed_kept >= plain.needed_kept
    # The first segment stops where the second compaction happened.
    assert one.calls == sum(1 for t in range(first["at"], at2) if conv.messages[t].role == "assistant")
