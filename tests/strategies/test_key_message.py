"""`key_message` against seed 004 (Electron key-message extraction): the seed's test list, its
scores, its fallbacks and its in-loop mode.

Counted with `ascii_cjk` (the seed's estimator): an ASCII text of ``4k`` characters costs ``k``
tokens and every message adds 10, so `words(k)` makes a message of exactly ``k + 10`` tokens.
"""

from __future__ import annotations

import math

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from ctxlab.messages import Message, ToolCall, validate_messages
from ctxlab.strategies import get_strategy, strategy_params
from ctxlab.strategies.mechanics import Usage, pinned
from ctxlab.strategies.seeds.key_message.fallback import tool_preview, trim_text
from ctxlab.strategies.seeds.key_message.scoring import (
    CODE_BONUS,
    KEYWORD_BONUS,
    NUMBER_BONUS,
    PATH_BONUS,
    RECENCY_MAX_BONUS,
    REPEAT_PENALTY,
    VERBOSE_CHARS,
    VERBOSE_PENALTY,
    base_score,
    content_bonus,
    recency_bonus,
    score_messages,
    tool_penalties,
)
from ctxlab.strategies.seeds.key_message.strategy import KeyMessage, compress_historical, loop_start
from ctxlab.tokens import get_counter
from tests.builders import Convo, huge_text
from tests.strategies.conftest import budgets, conversations

COUNTER = get_counter("ascii_cjk")


def words(k: int, offset: int = 0) -> str:
    """ASCII text costing exactly `k` tokens under ascii_cjk (letters only: no bonus features)."""
    return ("abcdefghij"[offset % 10] * (4 * k))


def km(messages, budget: int, **params):
    return get_strategy("key_message", **params).compress(messages, budget, counter="ascii_cjk")


def payload(r) -> dict:
    (event,) = r.events
    assert event.name == "compression"
    return dict(event.payload)


def long_chat(rounds: int, k: int = 30) -> tuple[Message, ...]:
    c = Convo().system("S" * 40)
    for i in range(rounds):
        c.user(words(k, i)).assistant(words(k, i + 1))
    return c.build()


# ---- defaults and the estimator -----------------------------------------------------------------

def test_seed_defaults() -> None:
    assert strategy_params("key_message") == {
        "trigger_threshold": 0.8, "target_usage": 0.5, "min_recent_messages": 10, "preview_chars": 400,
        "max_text_chars": 800, "fallback_rounds": 4, "in_loop": False}
    assert KeyMessage.seed_counter == "ascii_cjk"


@pytest.mark.parametrize(("text", "tokens"), [("hello", 2), ("你好", 2), ("hello你好", 4)])
def test_seed_estimator_values(text: str, tokens: int) -> None:
    assert COUNTER.count(text) == tokens


def test_seed_message_estimate_adds_10_per_message_and_50_per_tool_call() -> None:
    call = ToolCall("c1", "read_file", '{"p": 1}')  # 8 characters of arguments: 2 tokens
    assert COUNTER.count_message(Message("user", "hello", id="u")) == 12
    assert COUNTER.count_message(Message("assistant", None, id="a", tool_calls=(call,))) == 10 + 50 + 2


def test_usage_percentage() -> None:
    usage = Usage(900, 1000)
    assert usage.percent == 0.9 and usage.remaining == 100


# ---- the seed's CompressionPipeline tests ----------------------------------------------------------

def test_no_compression_at_or_under_the_threshold() -> None:
    messages = long_chat(10)
    total = COUNTER.count_messages(messages)
    assert total % 4 == 0  # so that budget * 0.8 == total exactly
    r = km(messages, total * 5 // 4)  # usage exactly 0.8: the seed compresses only above it
    assert r.messages == messages and r.dropped_ids == ()
    meta = payload(r)
    assert meta["compressed"] is False and meta["strategyUsed"] == "none"
    assert meta["inputTokens"] == meta["outputTokens"] == total and meta["droppedMessageIds"] == []


def test_compresses_to_about_50_percent_when_over_80_percent() -> None:
    messages = long_chat(40)  # 81 messages of 40 tokens (the system prompt 20)
    total = COUNTER.count_messages(messages)
    budget = math.ceil(total / 0.9)
    r = km(messages, budget)
    target = math.floor(budget * 0.5)
    assert target - 40 < r.tokens_after <= target
    meta = payload(r)
    assert meta["compressed"] is True and meta["strategyUsed"] == "KeyMessageExtraction"
    assert meta["fallback"] == "none" and meta["outputTokens"] == r.tokens_after


def test_returns_dropped_message_ids() -> None:
    messages = long_chat(40)
    r = km(messages, 2000)
    meta = payload(r)
    kept = {m.id for m in r.messages}
    assert meta["droppedMessageIds"] == list(r.dropped_ids) == [m.id for m in messages if m.id not in kept]
    assert meta["droppedCount"] == meta["inputCount"] - meta["outputCount"] == len(r.dropped_ids)


# ---- the seed's KeyMessageExtractionStrategy tests ----------------------------------------------

def test_always_keeps_recent_messages() -> None:
    messages = long_chat(40)
    r = km(messages, 2000)
    assert [m.id for m in messages[-10:]] == [m.id for m in r.messages[-10:]]
    assert all(m.mark is None for m in r.messages)


def test_prioritizes_user_messages() -> None:
    messages = long_chat(40)
    r = km(messages, 2000)
    older = [m for m in r.messages[1:-10]]
    assert older and all(m.role == "user" for m in older)
    dropped_users = [m for m in messages[1:-10] if m.role == "user" and m.id in r.dropped_ids]
    assert dropped_users and max(messages.index(m) for m in dropped_users) < messages.index(older[0])


def test_keeps_tool_call_groups_together() -> None:
    c = Convo().system()
    for i in range(12):
        c.user(words(20, i)).tools(("read_file", words(60 if i % 2 else 5, i)), ("grep", words(5, i)))
        c.assistant(words(10, i))
    messages = c.user("Done?").build()
    for budget in (800, 1500, 3000):
        r = km(messages, budget)
        validate_messages(r.messages)  # no orphan call or result
        kept = {m.id for m in r.messages}
        for i, m in enumerate(messages):
            if m.tool_calls:
                group = {m.id, messages[i + 1].id, messages[i + 2].id}
                assert group <= kept or not group & kept


def test_keeps_artifact_records() -> None:
    c = Convo().system()
    for i in range(20):
        c.user(words(2, i)).assistant("ARTIFACT_SAVED " + words(10, i) if i == 3 else words(10, i))
    messages = c.build()
    r = km(messages, 800)  # room for the must-keep set, every user message, the artifact, no more
    artifact = messages[8]
    assert "ARTIFACT_SAVED" in artifact.text and artifact in r.messages
    assert any(m.role == "assistant" and m.id in r.dropped_ids for m in messages[:8])


def test_respects_the_target_token_limit() -> None:
    messages = long_chat(40)
    for budget in (700, 1000, 2000, 3000):
        r = km(messages, budget)
        assert r.tokens_after <= math.floor(budget * 0.5)


def test_historical_system_messages_are_dropped_except_summaries() -> None:
    c = Convo().system().user(words(30)).assistant(words(30))
    messages = list(c.build())
    messages.insert(1, Message("system", "CONVERSATION_SUMMARY: the user wants a CLI.", id="summary"))
    messages += [Message("system", "Mode switched to plan.", id="note"), *long_chat(12)[1:]]
    r = km(messages, 1200)
    assert "summary" in r.kept_ids and "note" in r.dropped_ids
    assert messages[0] in r.messages  # the leading system prompt is pinned


# ---- scores -------------------------------------------------------------------------------------

def test_role_tiers_in_the_seed_order() -> None:
    call = (ToolCall("c", "f"),)
    assert base_score(Message("user", "ARTIFACT_SAVED", id="u")) == 100
    assert base_score(Message("assistant", "ARTIFACT_SAVED x", id="a", tool_calls=call)) == 90
    assert base_score(Message("tool", "NODE_COMPLETE", id="t", tool_call_id="c")) == 85
    assert base_score(Message("assistant", None, id="a", tool_calls=call)) == 80
    assert base_score(Message("tool", "ok", id="t", tool_call_id="c")) == 79
    assert base_score(Message("assistant", "hi", id="a")) == 50
    assert base_score(Message("system", "hi", id="s")) == 0


def test_recent_and_position_bonuses() -> None:
    messages = [Message("assistant", "plain", id=f"m{i}") for i in range(15)]
    scores = score_messages(messages, min_recent=10)
    for i, s in enumerate(scores):
        expected = 50 + (1000 if i >= 5 else 0) + i * 0.01 + recency_bonus(14 - i)
        assert s == pytest.approx(expected)


def test_explainable_weighting_values_stay_below_the_tier_gap() -> None:
    assert content_bonus("see src/app/main.py") == PATH_BONUS
    assert content_bonus("```\nx\n```") == CODE_BONUS
    assert content_bonus("it took 42 runs") == NUMBER_BONUS
    assert content_bonus("you must stop") == content_bonus("必须停止") == KEYWORD_BONUS
    assert content_bonus("nothing here") == 0
    assert recency_bonus(0) == RECENCY_MAX_BONUS and recency_bonus(10) == RECENCY_MAX_BONUS / 2
    assert PATH_BONUS + CODE_BONUS + NUMBER_BONUS + KEYWORD_BONUS + RECENCY_MAX_BONUS < 10


def test_verbose_and_repeated_tool_results_are_penalized() -> None:
    messages = Convo().tools(("read_file", "same")).tools(("read_file", "same")).tools(("grep", "same")) \
        .tools(("read_file", "x" * (VERBOSE_CHARS + 1))).build()
    assert tool_penalties(messages) == [0, 0, 0, REPEAT_PENALTY, 0, 0, 0, VERBOSE_PENALTY]


# ---- fallbacks (超预算兜底) ------------------------------------------------------------------------

def test_fallback_1_previews_tool_results() -> None:
    messages = Convo().system().user("Read the log.").tools(("read_file", huge_text(40_000))) \
        .assistant("Read it.").user("What failed?").build()
    r = km(messages, 2000)
    assert payload(r)["fallback"] == "tool_preview" and r.tokens_after <= 1000
    preview = r.messages[3]
    assert preview.mark == "truncated" and r.truncated_ids == (preview.id,)
    assert preview.text.startswith("[tool result preview, truncated] tool=read_file status=ok original=40000")
    assert "HEAD>" in preview.text and preview.text.endswith("<TAIL") and "characters omitted" in preview.text


def test_fallback_2_trims_long_texts() -> None:
    body = "\n\n".join(["First paragraph states the plan.", "Details " * 200,
                        "- update src/app.py\n- plain bullet", "Filler " * 200 + ". In summary, ship it."])
    messages = Convo().system().user("Plan it.").assistant(body).user("Go on.").build()
    r = km(messages, 300)
    assert payload(r)["fallback"] == "text_trim"
    trimmed = r.messages[2]
    assert trimmed.mark == "truncated" and trimmed.text.startswith("First paragraph states the plan.")
    assert "- update src/app.py" in trimmed.text and "In summary, ship it." in trimmed.text
    assert messages[-1] in r.messages  # the newest user message is never trimmed


def test_fallback_3_keeps_the_last_k_rounds() -> None:
    messages = long_chat(12, k=50)  # rounds of two 60-token messages, system prompt 20
    r = km(messages, 1000)  # target 500: the recent 10 messages need 620, the last 4 rounds 500
    assert payload(r)["fallback"] == "last_rounds"
    assert r.messages == (messages[0], *messages[-8:]) and r.tokens_after == 500


def test_last_resort_is_the_seeds_greedy_step() -> None:
    """Seed 004, step 4 of `compress`: ``for (const item of sortedByPriority) { ... if (tokenCount +
    item.tokens <= targetTokens) { selectedIndexes.add(...) } }``: by priority, a unit that does not
    fit is skipped and the loop goes on. When even the last K rounds are over the target, ctxlab runs
    that step once more with only the pinned messages fixed (formerly a contiguous newest suffix)."""
    messages = long_chat(12, k=50)  # 60-token messages, system prompt 20
    r = km(messages, 800)  # target 400; pinned: system prompt + u11 = 80
    assert payload(r)["fallback"] == "greedy" and r.fits and r.tokens_after == 380
    # The recent users first (+1000, tier 100), then the best recent assistant reply (tier 50).
    assert [m.id for m in r.messages] == ["m0", "m15", "m17", "m19", "m21", "m23", "m24"]


def test_tight_budget_skips_a_unit_that_does_not_fit_and_keeps_trying() -> None:
    """Issue 16, item 2. Seed 004's greedy step skips what does not fit (``if (tokenCount +
    item.tokens <= targetTokens)``, no break), so a long reply that does not fit must not push out
    the short user messages that do (the old fallback stopped at the first unit that did not fit)."""
    messages = (Convo().system(words(10)).user(words(10, 1)).assistant(words(140, 2)).user(words(10, 3))
                .assistant(words(160, 4)).user("Go on.").build())
    assert COUNTER.count_messages(messages) == 392
    r = km(messages, 400)  # target 200; everything is recent, so the must-keep set is over it
    assert payload(r)["fallback"] == "greedy" and r.tokens_after <= 200
    assert [m.id for m in r.messages] == ["m0", "m1", "m3", "m5"] and r.tokens_after == 72


def test_pinned_over_the_budget_is_kept_and_reported() -> None:
    messages = Convo().system(words(100)).user(words(100)).assistant(words(10)).user(words(100)).build()
    r = km(messages, 150)
    assert r.messages == (messages[0], messages[3]) and not r.fits and "alone need" in r.reason


def test_tool_preview_and_trim_text_leave_short_texts_alone() -> None:
    assert tool_preview("short", "grep", 400) is None
    assert trim_text("short", 800) is None
    assert "status=error" in tool_preview("Traceback (most recent call last):\n" + "x\n" * 500, "run", 100)


def test_trim_text_falls_back_to_first_sentence_and_conclusion() -> None:
    text = "One. " + "Two " * 400 + "\n\nMore " * 50 + "\n\nConclusion: it works."
    trimmed = trim_text(text, 100)
    assert trimmed.startswith("One.\nConclusion: it works.") and "trimmed" in trimmed


# ---- in-loop mode --------------------------------------------------------------------------------

def loop_convo() -> tuple[Message, ...]:
    """Ten rounds with a 1000-token tool output each, then a query and a loop of two tool calls."""
    c = Convo().system()
    for i in range(10):
        c.user(words(30, i)).tools(("read_file", huge_text(4000, f"H{i}>"))).assistant(words(10, i))
    return c.user("Fix it.").tools(("read_file", huge_text(2000))).tools(("run_tests", huge_text(2000))).build()


def test_loop_start_is_the_trailing_tool_run_after_the_newest_user() -> None:
    messages = loop_convo()
    assert loop_start(messages) == len(messages) - 4
    assert loop_start((*messages, Message("assistant", "Fixed.", id="end"))) == len(messages) + 1


def test_in_loop_keeps_the_current_loop_whole() -> None:
    messages = loop_convo()
    r = km(messages, 4400, in_loop=True)
    assert payload(r)["fallback"] == "tool_preview" and r.tokens_after <= 2200
    assert r.messages[-4:] == messages[-4:]  # the loop's outputs are not previewed
    assert any(m.mark == "truncated" for m in r.messages[:-4])
    plain = km(messages, 4400)  # outside the loop mode the loop's outputs are previewed too
    assert [m.mark for m in plain.messages[-4:]] == [None, "truncated", None, "truncated"]


def loop_of_three(result_k: int) -> tuple[Message, ...]:
    """Five plain rounds, a query, then the current loop: three call/result pairs (63 + result_k + 10 each)."""
    c = Convo().system(words(10))
    for i in range(5):
        c.user(words(30, i)).assistant(words(30, i + 1))
    c.user("Fix it.")
    for i in range(3):
        c.tools(("run_tests", words(result_k, i)))
    return c.build()


def test_in_loop_never_cuts_the_current_loop_at_a_tight_target() -> None:
    """Issue 16, item 1. Seed 004, Loop 内压缩设计: "只压缩 Loop 开始前的历史消息，不压缩当前 Loop 内
    产生的消息" (only the history before the loop is compressed; the current loop's messages never
    are) and its table: ``[loopStartIndex, end)`` 当前 Loop ❌ 保持完整. The loop alone is over the
    target of 700 here: it stays whole (the old last resort dropped its first call and result) and
    the compression event says why the target was missed."""
    messages = loop_of_three(200)  # loop: 3 x 273 = 819 tokens; system prompt + query 32
    r = km(messages, 1400, in_loop=True)  # target 700
    loop = messages[-6:]
    assert r.messages[-6:] == loop and all(m.mark is None for m in loop)
    assert [m.id for m in r.messages[:-6]] == ["m0", "m11"] and r.tokens_after == 851 and r.fits
    meta = payload(r)
    assert meta["fallback"] == "greedy"
    assert meta["reason"] == ("the system prompt, newest user message and current tool loop alone need 851 "
                              "tokens, over the target of 700")


def test_in_loop_over_the_budget_keeps_the_loop_and_does_not_fit() -> None:
    """Seed 004: the current loop is 不可压缩区域 (not compressible). When it is over the whole budget
    it is still kept whole: `fits` is false and the reason names the loop."""
    messages = loop_of_three(400)  # loop: 3 x 473 = 1419 tokens
    r = km(messages, 1400, in_loop=True)
    assert r.messages[-6:] == messages[-6:] and not r.fits
    assert r.reason == ("the system prompt, newest user message and current tool loop alone need 1451 tokens, "
                        "over the budget of 1400")


def test_compress_historical_mirrors_the_seed() -> None:
    messages = loop_convo()
    start = loop_start(messages)
    out = compress_historical(messages, start, 6000)
    assert out.messages[out.new_loop_start:] == messages[start:]
    assert out.new_loop_start == len(out.result.messages) < start
    assert out.result.input_ids == tuple(m.id for m in messages[:start])
    assert out.result.tokens_after <= 3000  # the seed's target applies to the historical part alone
    calm = compress_historical(messages, start, 100_000)  # the historical part is under 80%
    assert calm.messages == messages and calm.new_loop_start == start


def test_deterministic_and_rebuildable_from_its_spec() -> None:
    messages = loop_convo()
    strategy = get_strategy("key_message:in_loop=true,min_recent_messages=4")
    first = strategy.compress(messages, 3000, counter="ascii_cjk")
    again = strategy.spec.build().compress(messages, 3000, counter="ascii_cjk")
    assert first.messages == again.messages and first.events == again.events


@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(data=st.data())
def test_fits_the_target_whenever_the_pinned_messages_do(data: st.DataObject) -> None:
    messages = data.draw(conversations())
    budget = data.draw(budgets(COUNTER.count_messages(messages)))
    r = km(messages, budget)
    pinned_cost = sum(COUNTER.count_message(messages[i]) for i in pinned(messages))
    assert r.fits or pinned_cost > budget
    if payload(r)["compressed"]:
        assert r.tokens_after <= max(math.floor(budget * 0.5), pinned_cost)


@given(st.text(alphabet="ab error\n", max_size=400), st.sampled_from(["", "grep", "run"]), st.integers(1, 120))
@settings(max_examples=200, deadline=None)
def test_tool_preview_kept_per_text_equals_a_fresh_one(text: str, name: str, chars: int) -> None:
    first = tool_preview(text, name, chars)
    assert tool_preview(text, name, chars) == first == tool_preview.__wrapped__(text, name, chars)
