"""The replay's per-result metrics on hand-built cases."""

from __future__ import annotations

from ctxlab.messages import Message, ToolCall
from ctxlab.replay import metrics
from ctxlab.strategies import Event, get_strategy
from ctxlab.tokens import get_counter


def msg(role: str, text: str | None, id: str, **kw) -> Message:
    return Message(role=role, content=text, id=id, **kw)


SYS = msg("system", "be brief", "s")
U1 = msg("user", "first question", "u1")
CALL = msg("assistant", None, "a1", tool_calls=(ToolCall("c1", "grep", '{"q": "x"}'),))
RESULT = msg("tool", "3 matches", "t1", tool_call_id="c1")
A2 = msg("assistant", "answer", "a2")
U2 = msg("user", "second question", "u2")
ORIGINALS = (SYS, U1, CALL, RESULT, A2, U2)


def test_retained_ratio_and_fit():
    assert metrics.retained_ratio(200, 50) == 0.25
    assert metrics.retained_ratio(0, 0) == 1.0
    assert metrics.fits(100, 100) and not metrics.fits(101, 100)


def test_request_tokens_matches_the_counter_on_the_whole_request():
    counter = get_counter("o200k_base")
    tools = [{"type": "function", "function": {"name": "grep", "description": "search",
                                                "parameters": {"properties": {"q": {"type": "string"}}}}}]
    assert metrics.request_tokens(counter, ORIGINALS, tools) == counter.count_messages(ORIGINALS, tools)


def test_real_fit_can_differ_from_the_estimate():
    # chars4 thinks this CJK text is small; o200k_base counts it several times larger.
    text = "上下文压缩需要保留关键信息" * 40
    messages = [msg("user", text, "u")]
    estimate = metrics.request_tokens(get_counter("chars4"), messages)
    real = metrics.request_tokens(get_counter("o200k_base"), messages)
    window = estimate + 10
    assert metrics.fits(estimate, window) and not metrics.fits(real, window)


def test_accounting_counts_kept_truncated_dropped_and_added():
    summary = msg("user", "summary of u1..a2", "sum", mark="summary", source_ids=("u1", "a1", "t1", "a2"))
    result = (SYS, summary, U2.with_text("second"))
    acc = metrics.accounting(ORIGINALS, result)
    assert acc == metrics.Accounting(kept=1, truncated=1, dropped=4, added=1)


def test_tool_integrity_finds_orphans_both_ways():
    assert metrics.tool_integrity(ORIGINALS).intact
    no_result = metrics.tool_integrity((SYS, U1, CALL, A2, U2))
    assert no_result == metrics.ToolIntegrity(orphan_calls=1, orphan_results=0) and not no_result.intact
    no_call = metrics.tool_integrity((SYS, U1, RESULT, A2, U2))
    assert no_call == metrics.ToolIntegrity(orphan_calls=0, orphan_results=1)


def test_pinned_kept_needs_system_and_newest_user_whole():
    assert metrics.pinned_kept(ORIGINALS, ORIGINALS) == (True, True)
    assert metrics.pinned_kept(ORIGINALS, (SYS, U2.with_text("cut"))) == (True, False)
    assert metrics.pinned_kept(ORIGINALS, (U2,)) == (False, True)
    assert metrics.pinned_kept((U1, A2), (U1, A2)) == (None, True)
    assert metrics.pinned_kept((SYS,), (SYS,)) == (True, None)


def test_llm_usage_sums_calls_and_skips_cached_ones():
    events = [Event("summary_call", {"input_tokens": 100, "output_tokens": 20, "cost_usd": 0.01, "latency_ms": 50}),
              Event("summary_call", {"input_tokens": 10, "output_tokens": 2, "cost_usd": 0.0, "cached": True}),
              Event("context_compacted", {"summarizer_cost_usd": 0.01}),
              Event("gssc.build", {"output_tokens": 3_000})]  # token figures that are not an LLM call
    assert metrics.llm_usage(events) == metrics.LLMUsage(1, 110, 22, 0.01, 50.0)
    assert metrics.llm_usage([]) == metrics.LLMUsage()


def test_against_originals_accounts_for_messages_lost_in_earlier_turns():
    # Turn 2's input already lacked u1..a2 (dropped in turn 1); the result must still count them.
    live = (SYS, U2)
    result = get_strategy("noop").compress(live, 10_000, counter="o200k_base")
    effective = metrics.against_originals(result, ORIGINALS, tokens_before=999)
    assert effective.input_ids == tuple(m.id for m in ORIGINALS)
    assert set(effective.dropped_ids) == {"u1", "a1", "t1", "a2"}
    assert effective.truncated_ids == () and effective.tokens_before == 999
