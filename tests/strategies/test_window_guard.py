"""`window_guard` against seed 003 (context window guard): the plan's own test list, L1 to L3.

Counted with `chars3` (the seed's ``ceil(length / 3)``), so a text of ``3k`` characters costs
exactly ``k`` tokens.
"""

from __future__ import annotations

from dataclasses import replace

import pytest

from ctxlab.errors import CtxlabError
from ctxlab.models import context_window
from ctxlab.strategies import get_strategy, strategy_params
from ctxlab.strategies.mechanics import turns
from ctxlab.strategies.mechanics.fit import window_by_turns
from ctxlab.strategies.seeds.window_guard import WindowGuard
from tests.builders import Convo, chat, huge_text

MARKER = "\n\n... [{} characters truncated] ...\n\n"


def tokens(k: int) -> str:
    return "x" * (3 * k)


def guard(messages, budget: int, **params):
    return get_strategy("window_guard", **params).compress(messages, budget, counter="chars3")


def warn_lines(r) -> list[str]:
    return [e.payload["message"] for e in r.events]


def test_seed_defaults() -> None:
    assert strategy_params("window_guard") == {
        "max_tool_result_chars": 50_000, "truncate_head_chars": 2_000, "truncate_tail_chars": 2_000,
        "reserve_tokens": 8192, "model": None, "context_window_override": None}
    assert WindowGuard.seed_counter == "chars3"


# ---- L1: tool output truncation -----------------------------------------------------------------

def exchange(output: str, name: str | None = None):
    c = Convo().system().user("Read the log.").tools(("read_file", output)).assistant("Read.").user("Next?")
    messages = list(c.build())
    if name is not None:
        messages[3] = replace(messages[3], name=name)
    return tuple(messages)


def test_short_tool_output_is_not_truncated() -> None:
    messages = exchange("short output")
    r = guard(messages, 10_000_000)
    assert r.messages == messages and r.events == ()


def test_long_tool_output_keeps_head_and_tail_with_the_marker_and_original_count() -> None:
    text = huge_text(120_000)
    r = guard(exchange(text), 10_000_000)
    out = r.messages[3]
    expected = text[:2000] + "\n\n... [116000 characters truncated] ...\n\n" + text[-2000:]
    assert out.text == expected and out.mark == "truncated" and out.id == "m3" and out.tool_call_id == "call_0"
    assert out.text.startswith("HEAD>") and out.text.endswith("<TAIL")
    assert warn_lines(r) == [f'Context guard: truncated tool result for "read_file" (120000 → {len(expected)} chars)']
    assert r.truncated_ids == ("m3",) and r.dropped_ids == ()


def test_boundary_exactly_max_chars_and_one_more() -> None:
    assert guard(exchange(huge_text(50_000)), 10_000_000).truncated_ids == ()
    r = guard(exchange(huge_text(50_001)), 10_000_000)
    assert r.truncated_ids == ("m3",) and "[46001 characters truncated]" in r.messages[3].text


def test_tool_name_comes_from_the_result_when_it_has_one() -> None:
    r = guard(exchange(huge_text(60_000), name="shell"), 10_000_000)
    assert warn_lines(r)[0].startswith('Context guard: truncated tool result for "shell"')


def test_l1_applies_to_tool_results_only() -> None:
    messages = Convo().system().user(huge_text(60_000)).assistant(huge_text(60_000)).user("ok").build()
    assert guard(messages, 10_000_000).truncated_ids == ()


def test_custom_head_tail_and_threshold() -> None:
    r = guard(exchange("a" * 50 + "b" * 50), 10_000, max_tool_result_chars=80,
              truncate_head_chars=10, truncate_tail_chars=5)
    assert r.messages[3].text == "a" * 10 + MARKER.format(85) + "b" * 5


# ---- L2: window-aware history trimming ----------------------------------------------------------

def test_short_conversation_is_not_trimmed() -> None:
    messages = chat(3)
    r = guard(messages, 10_000)
    assert r.messages == messages and r.events == () and r.fits


def test_only_system_and_one_user_message_is_not_trimmed() -> None:
    messages = Convo().system().user("hello").build()
    r = guard(messages, 100)
    assert r.messages == messages and r.dropped_ids == ()


def test_long_conversation_drops_the_oldest_whole_turns_and_keeps_the_newest() -> None:
    messages = chat(20, chars=300)  # each turn 200 tokens
    r = guard(messages, 1000)
    kept = [m.id for m in r.messages]
    assert kept[0] == "m0" and kept[-1] == messages[-1].id  # system prompt and newest turn
    assert kept[1:] == [m.id for m in messages[len(messages) - len(kept) + 1:]]  # a suffix
    assert r.messages[1].role == "user"  # whole turns: never an assistant reply without its question
    assert r.tokens_after < 1000  # the seed: the trimmed estimate is under the budget
    assert warn_lines(r)[-1] == (f"Context guard: dropped {len(r.dropped_ids)} old messages "
                                 f"(estimated {r.tokens_before - r.tokens_after} tokens)")


def test_system_prompt_is_always_kept() -> None:
    messages = Convo().system(tokens(100)).user(tokens(100)).assistant(tokens(100)).user(tokens(10)).build()
    r = guard(messages, 150)
    assert [m.id for m in r.messages] == ["m0", "m3"] and r.fits


def test_every_system_message_is_kept_wherever_it_stands() -> None:
    """Issue 16, item 4. Seed 003, guardContext: ``const systemMsgs = truncated.filter(m => m.role ===
    "system")`` ... ``// system prompt 始终保留，从预算中扣除`` (the system messages always stay and
    are taken off the budget first). A system message in the middle of the conversation is one of
    them; it stays in its place (the seed moves it to the front; ctxlab keeps the order)."""
    messages = Convo().system(tokens(10)).user(tokens(100)).assistant(tokens(100)) \
        .system("Mode switched to plan.").user(tokens(100)).assistant(tokens(100)).user(tokens(10)).build()
    r = guard(messages, 100)
    assert [m.id for m in r.messages] == ["m0", "m3", "m6"] and r.fits
    assert r.dropped_ids == ("m1", "m2", "m4", "m5")
    assert warn_lines(r)[-1] == "Context guard: dropped 4 old messages (estimated 400 tokens)"


def test_truncation_and_trimming_combine() -> None:
    messages = Convo().system().user(tokens(500)).assistant(tokens(500)) \
        .user("Read it.").tools(("read_file", huge_text(90_000))).assistant("Done.").user("Next?").build()
    r = guard(messages, 2000)
    assert r.truncated_ids == ("m5",) and r.dropped_ids == ("m1", "m2")
    lines = warn_lines(r)
    assert lines[0].startswith('Context guard: truncated tool result for "read_file" (90000 → ')
    assert lines[1].startswith("Context guard: dropped 2 old messages")
    assert r.fits


def test_a_single_message_over_budget_is_kept_and_does_not_fit() -> None:
    messages = Convo().system().user(tokens(500)).build()
    r = guard(messages, 100)
    assert r.messages == messages and not r.fits and r.reason


def test_newest_turn_too_big_drops_its_oldest_tool_groups_keeping_the_newest_message() -> None:
    messages = Convo().system(tokens(10)).user(tokens(10)).assistant(tokens(10)).user("Go.") \
        .tools(("a", tokens(100)), ("b", tokens(100))).tools(("c", tokens(50))).assistant(tokens(20)).build()
    # Tokens: system 10 | old turn 10 + 10 | "Go." 1, exchange m4-m6 257, exchange m7-m8 79, answer m9 20.
    r = guard(messages, 120)
    assert [m.id for m in r.messages] == ["m0", "m3", "m7", "m8", "m9"] and r.fits
    r = guard(messages, 40)
    assert [m.id for m in r.messages] == ["m0", "m3", "m9"] and r.fits
    r = guard(messages, 5)  # the newest message stays even when nothing fits
    assert [m.id for m in r.messages] == ["m0", "m3", "m9"] and not r.fits and r.reason


# ---- the window: context_window_override, model ---------------------------------------------------

def test_window_minus_reserve_caps_the_budget() -> None:
    s = WindowGuard(context_window_override=10_000)
    assert s.effective_budget(1_000_000) == 10_000 - 8192
    assert s.effective_budget(500) == 500
    assert WindowGuard().effective_budget(1234) == 1234
    messages = chat(20, chars=300)
    r = guard(messages, 1_000_000, context_window_override=9000, reserve_tokens=8000)
    assert r.tokens_after <= 1000 and r.dropped_ids


def test_model_window_comes_from_litellm() -> None:
    assert context_window("gpt-4o") == 128_000
    assert WindowGuard(model="gpt-4o").effective_budget(10**9) == 128_000 - 8192
    assert WindowGuard(model="gpt-4o", context_window_override=50_000).effective_budget(10**9) == 50_000 - 8192
    with pytest.raises(CtxlabError, match="no-such-model"):
        WindowGuard(model="no-such-model-xyz").compress(chat(1), 100)


# ---- the shared whole-turn window ---------------------------------------------------------------

def test_window_by_turns_keeps_whole_turns() -> None:
    messages = chat(5, chars=30)  # system, then 5 turns of 2 messages
    counts = [10] * len(messages)
    assert window_by_turns(messages, counts, 10 + 40) == {0, 7, 8, 9, 10}
    assert window_by_turns(messages, counts, 10 + 39) == {0, 9, 10}
    assert len(turns(messages, 1)) == 5
