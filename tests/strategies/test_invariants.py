"""Invariants every registered strategy keeps (DESIGN.md), checked on generated conversations.

Parametrized over `ctxlab.list_strategies()`, so a strategy added later (a policy preset too) is
covered as soon as its module exists. Accounting is read from the result's id lists and the output
messages' `source_ids`, so strategies that fold messages into one structured message (gssc) are
judged on what they claim, not on one output message per input id.

A faithful preset whose agent breaks an invariant declares it (``breaks_tool_pairs``,
``drops_pinned``) and is held instead to reporting every broken pair and every pinned message it
did not keep, in its events.
"""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import ctxlab
from ctxlab.messages import Message, validate_messages
from ctxlab.strategies import CompressionResult, StrategySpec, get_strategy
from ctxlab.strategies.mechanics import pinned
from ctxlab.strategies.mechanics.integrity import BROKEN_PAIRS, DROPPED_PINNED
from ctxlab.strategies.policy import orphans
from ctxlab.tokens import get_counter
from tests.builders import Convo, agent_session, chat, cjk_text, huge_text
from tests.strategies.conftest import budgets, conversations

# Parameters for strategies whose defaults would make a property vacuous (none so far: every
# strategy here is driven by the `budget` argument when no model window is configured).
PARAMS: dict[str, dict[str, Any]] = {}
# Extra settings that reach code the defaults rarely reach on small generated conversations
# (masking within a few turns, L1 truncation of mid-sized outputs, a window below the budget).
EXTRA: list[tuple[str, dict[str, Any]]] = [
    ("observation_masking", {"attention_window": 2}),
    ("window_guard", {"max_tool_result_chars": 3000, "truncate_head_chars": 400, "truncate_tail_chars": 300,
                      "context_window_override": 3000, "reserve_tokens": 500}),
    ("sliding_window", {"max_chars_per_message": 300}),
    ("pipeline", {"steps": ("observation_masking:attention_window=1,fallback_window=false",
                            {"name": "window_guard", "params": {"max_tool_result_chars": 2000}},
                            "sliding_window")}),
    # The agent presets' defaults assume 100k+ windows; these reach their cuts on small conversations.
    ("pi", {"trigger_reserve": 0, "keep_tokens": 200, "summary_max_tokens": 300, "prefix_max_tokens": 150}),
    ("codex", {"keep_tokens": 40, "summary_max_tokens": 200}),
    ("langchain_trim", {"start_on_user": False}),
    ("langchain_summarization", {"keep_messages": 3, "summary_input_tokens": 300, "summary_max_tokens": 200}),
    ("langchain_clear_tool_uses", {"trigger_tokens": 0, "mask_keep": 1}),
    ("openhands", {"trigger_events": 8, "keep_first": 1, "summary_max_tokens": 200}),
    ("inspect_trim", {"keep_message_share": 0.4}),
    ("inspect_edit", {"mask_keep": 1, "trigger_share": 0.1}),
    ("claude_code", {"trigger_reserve": 0, "trigger_reply": 0, "summary_max_tokens": 200}),
    ("anthropic_context_editing", {"trigger_tokens": 0, "mask_keep": 1, "mask_inputs": True, "mask_at_least": 20}),
    ("recommended", {"trigger_share": 0.3, "target_share": 0.2, "mask_keep": 1, "summary_max_tokens": 200}),
    ("gemini_cli", {"prune_protect_tokens": 40, "prune_min_tokens": 20, "results_budget_tokens": 60,
                    "results_cut_chars": 200, "summary_max_tokens": 200}),
    ("opencode", {"prune_protect_tokens": 40, "prune_min_tokens": 10, "prune_skip_turns": 1, "summary_max_tokens": 200}),
    ("cline", {"keep_tokens": 100, "summary_max_tokens": 200}),
    ("aider", {"trigger_min_tokens": 0, "summary_max_tokens": 100, "summary_input_tokens": 200}),
    ("goose", {"summary_input_tokens": 300, "summary_max_tokens": 200}),
    ("letta", {"evict_share": 0.1, "summary_max_tokens": 200, "summary_max_chars": 300}),
    ("policy", {"tail": "recent_messages", "keep_messages": 3, "snap": "group_start", "middle": "summarize",
                "summary_max_tokens": 200, "placement": "cut"}),
]
CASES = [(name, PARAMS.get(name, {})) for name in ctxlab.list_strategies()] + EXTRA
CASE_IDS = [f"{name}-tuned" if params else name for name, params in CASES]
TOOLS = [{"type": "function", "function": {
    "name": "read_file", "description": "Read a file from the repository.",
    "parameters": {"type": "object", "properties": {"path": {"type": "string", "description": "file path"}},
                   "required": ["path"]}}}]
FAST = settings(max_examples=120, deadline=None,
                suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
FAST_CJK = settings(FAST, max_examples=60)




def check_invariants(messages: tuple[Message, ...], budget: int, counter, tools, r: CompressionResult,
                     strategy: Any = None) -> None:
    """Assert every shared invariant of one result (or, for what `strategy` declares it breaks,
    that the result reports it)."""
    counter = get_counter(counter)
    _check_accounting(messages, r)
    _check_messages(messages, r)
    if getattr(strategy, "breaks_tool_pairs", False):
        _check_reported_pairs(r)
    else:
        validate_messages(r.messages)  # unique ids; no orphan call or result (OpenAI and Anthropic)
    if getattr(strategy, "drops_pinned", False):
        _check_reported_pinned(messages, r)
    else:
        _check_pinned(messages, r)
    assert r.tokens_before == counter.count_messages(messages, tools)
    assert r.tokens_after == counter.count_messages(r.messages, tools)
    assert r.budget == budget
    assert r.fits == (r.tokens_after <= budget)
    if not r.fits:
        assert r.reason
    assert r.counter == counter.name


def _check_accounting(messages, r: CompressionResult) -> None:
    ids = [m.id for m in messages]
    assert list(r.input_ids) == ids
    kept, truncated, dropped = r.kept_ids, r.truncated_ids, r.dropped_ids
    assert len(set(truncated)) == len(truncated) and len(set(dropped)) == len(dropped)
    assert not set(truncated) & set(dropped)
    assert set(kept) | set(truncated) | set(dropped) == set(ids)
    represented = {m.id for m in r.messages} | {s for m in r.messages for s in m.source_ids}
    assert set(kept) <= represented, "a kept id is missing from the output"
    assert set(truncated) <= represented, "a truncated id is missing from the output"


def _check_messages(messages, r: CompressionResult) -> None:
    """Originals unchanged and in order, truncated ones marked, invented ones marked."""
    by_id = {m.id: (i, m) for i, m in enumerate(messages)}
    kept, last = set(r.kept_ids), -1
    for m in r.messages:
        if m.mark in ("summary", "marker"):
            continue
        assert m.id in by_id, f"unmarked message {m.id!r} was invented"
        position, original = by_id[m.id]
        assert position > last, "order not preserved"
        last = position
        assert (m.role, m.tool_call_id) == (original.role, original.tool_call_id)
        assert [c.id for c in m.tool_calls] == [c.id for c in original.tool_calls]
        if m.mark is None:
            assert m == original and m.id in kept
        else:
            assert m.mark == "truncated" and m.id in r.truncated_ids
    dropped = set(r.dropped_ids)
    assert not any(m.id in dropped for m in r.messages if m.mark in (None, "truncated"))


def _check_pinned(messages, r: CompressionResult) -> None:
    kept, truncated = set(r.kept_ids), set(r.truncated_ids)
    for i in pinned(messages):
        mid = messages[i].id
        assert mid in kept or (mid in truncated and not r.fits), f"pinned {mid} not kept"


def _events(r: CompressionResult, name: str) -> list[dict]:
    return [dict(e.payload) for e in r.events if e.name == name]


def _check_reported_pairs(r: CompressionResult) -> None:
    """Every orphaned call and result is listed in one event (and none is listed falsely)."""
    assert len({m.id for m in r.messages}) == len(r.messages)
    found = orphans(r.messages)
    reported = _events(r, BROKEN_PAIRS)
    if not found:
        validate_messages(r.messages)
        assert not reported
        return
    assert reported == [{"orphan_calls": list(found.calls), "orphan_results": list(found.results)}]


def _check_reported_pinned(messages, r: CompressionResult) -> None:
    """Every pinned message not kept whole is listed in one event."""
    whole = {m.id for m in r.messages if m.mark is None}
    lost = [messages[i].id for i in sorted(pinned(messages)) if messages[i].id not in whole]
    assert _events(r, DROPPED_PINNED) == ([{"ids": lost}] if lost else [])


def check_repeatable(strategy, messages, budget, counter, tools, r: CompressionResult) -> None:
    """Same input, same result; the stored spec rebuilds a strategy giving the same result."""
    again = strategy.compress(messages, budget, counter=counter, tools=tools)
    rebuilt = StrategySpec.from_json(r.spec.to_json()).build()
    assert rebuilt.spec == strategy.spec
    replayed = rebuilt.compress(messages, budget, counter=counter, tools=tools)
    for other in (again, replayed):
        assert other.messages == r.messages
        assert (other.dropped_ids, other.truncated_ids) == (r.dropped_ids, r.truncated_ids)
        assert (other.tokens_after, other.fits, other.summary) == (r.tokens_after, r.fits, r.summary)
        assert other.events == r.events


def run_all(case: tuple[str, dict[str, Any]], messages, budget: int, counter, tools=None) -> CompressionResult:
    strategy = get_strategy(case[0], **case[1])
    r = strategy.compress(messages, budget, counter=counter, tools=tools)
    check_invariants(messages, budget, counter, tools, r, strategy)
    check_repeatable(strategy, messages, budget, counter, tools, r)
    return r


@pytest.mark.parametrize("case", CASES, ids=CASE_IDS)
@FAST
@given(data=st.data())
def test_invariants_chars4(case: tuple[str, dict[str, Any]], data: st.DataObject) -> None:
    messages = data.draw(conversations())
    budget = data.draw(budgets(get_counter("chars4").count_messages(messages)))
    run_all(case, messages, budget, "chars4")


@pytest.mark.parametrize("case", CASES, ids=CASE_IDS)
@FAST_CJK
@given(data=st.data())
def test_invariants_ascii_cjk_with_tools(case: tuple[str, dict[str, Any]], data: st.DataObject) -> None:
    messages = data.draw(conversations(max_turns=4))
    budget = data.draw(budgets(get_counter("ascii_cjk").count_messages(messages, TOOLS)))
    run_all(case, messages, budget, "ascii_cjk", TOOLS)


EXAMPLES = {
    "agent": agent_session(14, output_chars=3000, parallel=2),
    "chat": chat(12, chars=600),
    "cjk": Convo().system("你是一个助手。").user(cjk_text(800)).assistant(cjk_text(900))
                  .user(cjk_text(400)).tools(("read_file", cjk_text(3000)), ("grep", "无结果"))
                  .assistant(cjk_text(200)).user("请总结。").build(),
    "huge_output": Convo().system().user("Inspect the log.").tools(("read_file", huge_text(120_000)))
                          .assistant("It is long.").user("Which line failed?").build(),
}


@pytest.mark.parametrize("case", CASES, ids=CASE_IDS)
@pytest.mark.parametrize("example", sorted(EXAMPLES))
@pytest.mark.parametrize("share", [0.05, 0.3, 0.7, 1.1])
def test_invariants_o200k_examples(case: tuple[str, dict[str, Any]], example: str, share: float) -> None:
    messages = EXAMPLES[example]
    total = get_counter("o200k_base").count_messages(messages, TOOLS)
    run_all(case, messages, max(1, int(total * share)), "o200k_base", TOOLS)


@pytest.mark.parametrize("case", CASES, ids=CASE_IDS)
def test_accepts_openai_dicts(case: tuple[str, dict[str, Any]]) -> None:
    messages = agent_session(4, output_chars=500)
    dicts = [m.to_openai() for m in messages]  # no ids: derived from positions
    strategy = get_strategy(case[0], **case[1])
    r = strategy.compress(dicts, 300, counter="chars4")
    check_invariants(tuple(Message.from_openai(d, i) for i, d in enumerate(dicts)), 300, "chars4", None, r, strategy)
