"""`opencode` against opencode's classic session/compaction.ts (anomalyco/opencode @ fd78ec63):
``isOverflow`` (input limit less min(20k, max output), ``compaction.reserved``), ``prune`` (2 user
turns skipped, 40k protected, more than 20k to erase, ``skill`` exempt, stop at a cleared output)
and ``process`` (the summary as the model's answer between "What did we do so far?" and the
auto-continue prompt)."""

from __future__ import annotations

import json

import pytest

from ctxlab.messages import Message, ToolCall
from ctxlab.strategies import get_strategy
from ctxlab.summarize import agent_prompts as ap
from ctxlab.summarize import get_summarizer
from ctxlab.summarize.cache import MemoryCache
from tests.summarize.fake_openai import FakeOpenAI

HUGE = 10_000_000


def out(tokens: int) -> str:
    """A tool output of `tokens` under opencode's Token.estimate (round(chars / 4))."""
    return "x" * (4 * tokens)


def turn(n: int, *outputs: str, tool: str = "read") -> list[Message]:
    """A user turn: the request, then one assistant message calling a tool per output, and the results."""
    calls = tuple(ToolCall(f"c{n}_{k}", tool, json.dumps({"path": f"f{n}_{k}.py"})) for k in range(len(outputs)))
    results = [Message("tool", text, id=f"t{n}_{k}", tool_call_id=f"c{n}_{k}") for k, text in enumerate(outputs)]
    return [Message("user", f"Request {n} about mod{n}.py.", id=f"u{n}"),
            Message("assistant", f"Working on mod{n}.py.", id=f"a{n}", tool_calls=calls), *results]


def session(*turns: list[Message]) -> tuple[Message, ...]:
    return (Message("system", "You are opencode.", id="s"), *(m for t in turns for m in t),
            Message("user", "What next?", id="now"))


def cleared(r) -> list[str]:
    return [m.id for m in r.messages if m.mark == "truncated" and m.text == ap.OPENCODE_PLACEHOLDER]


def test_overflow_at_the_input_limit_less_min_20k_and_the_max_output() -> None:
    trigger = get_strategy("opencode").when()
    assert trigger.threshold(200_000) == 180_000 and trigger.inclusive
    assert trigger.fires(180_000, 200_000) and not trigger.fires(179_999, 200_000)
    assert get_strategy("opencode", model="gpt-4o").when().threshold(128_000) == 128_000 - 16_384  # max output 16,384
    reserved = get_strategy("opencode", trigger_reserve=50_000, trigger_reply=0).when()  # compaction.reserved
    assert reserved.threshold(200_000) == 150_000


def test_prune_skips_the_two_newest_user_turns_and_protects_40k() -> None:
    """Turn 1: three 30k outputs; turns 2 and 3 (the newest before the current one) are skipped.
    Newest first 30k (protected), 30k (60k > 40k, pruned), 30k: 60k > 20k, both older ones go."""
    r = get_strategy("opencode").compress(session(turn(1, out(30_000), out(30_000), out(30_000)),
                                                  turn(2, out(30_000)), turn(3, out(30_000))), HUGE, counter="o200k_base")
    assert cleared(r) == ["t1_0", "t1_1"]
    assert [e.payload for e in r.events] == [{"outputs": 2, "tokens": 60_000}]


@pytest.mark.parametrize(("older", "expected"), [(20_000, []), (20_001, ["t1_0"])])
def test_prune_erases_only_when_more_than_20k_would_go(older: int, expected: list[str]) -> None:
    r = get_strategy("opencode").compress(session(turn(1, out(older), out(40_000)), turn(2), turn(3)), HUGE,
                                          counter="o200k_base")
    assert cleared(r) == expected


def test_skill_outputs_are_never_counted_nor_pruned() -> None:
    """Newest first 35k, then 10k crosses 40k: 10k prunable, not more than 20k. Counted, the skill's 50k
    would make 60k prunable (itself included)."""
    messages = session(turn(0, out(50_000), tool="skill"), turn(1, out(10_000), out(35_000)), turn(2), turn(3))
    assert cleared(get_strategy("opencode").compress(messages, HUGE, counter="o200k_base")) == []
    assert cleared(get_strategy("opencode", prune_exempt=()).compress(messages, HUGE,
                                                                      counter="o200k_base")) == ["t0_0", "t1_0"]


def test_the_scan_stops_at_an_output_already_cleared() -> None:
    """Newest first 30k (protected), then an output cleared earlier: the scan ends there, the 90k before
    it stays; passing over it instead (as Gemini CLI does) the 90k would go."""
    messages = session(turn(0, out(90_000)), turn(1, ap.OPENCODE_PLACEHOLDER, out(30_000)), turn(2), turn(3))
    assert cleared(get_strategy("opencode").compress(messages, HUGE, counter="o200k_base")) == []
    passing = get_strategy("opencode", prune_stop_at_pruned=False).compress(messages, HUGE, counter="o200k_base")
    assert cleared(passing) == ["t0_0"]


def test_compaction_is_the_models_answer_between_the_request_and_the_continue_prompt() -> None:
    messages = session(turn(1, "def parse(): ...\n" * 40), turn(2, "All 12 tests pass."))
    r = get_strategy("opencode").compress(messages, 400, counter="o200k_base")
    assert [(m.role, m.mark) for m in r.messages] == [("system", None), ("user", None), ("user", "marker"),
                                                      ("assistant", "summary"), ("user", "marker")]
    assert r.messages[1].id == "now"  # ctxlab keeps the newest user message
    assert r.messages[2].text == "What did we do so far?"
    assert r.messages[4].text == ("Continue if you have next steps, or stop and ask for clarification if you are "
                                  "unsure how to proceed.")
    assert r.messages[3].text == r.summary and r.summary.startswith("## Goal\n- Request 1 about mod1.py.")
    assert "s" not in r.messages[3].source_ids  # the system prompt is not summarized


def test_a_later_compaction_summarizes_from_the_previous_summary_on() -> None:
    first = get_strategy("opencode").compress(session(turn(1, "alpha " * 300)), 400, counter="o200k_base")
    later = (*first.messages, *turn(2, "beta " * 300), Message("user", "And then?", id="then"))
    r = get_strategy("opencode").compress(later, 400, counter="o200k_base")
    assert [m.id for m in r.messages if m.mark is None] == ["s", "then"]
    assert {"now", "now:prelude"}.isdisjoint(r.messages[3].source_ids)  # before the previous summary: gone
    assert "Request 1 about mod1.py." in r.summary  # carried by the previous summary


def test_llm_request_is_the_history_then_the_prompt_without_a_system_prompt() -> None:
    with FakeOpenAI(reply="## Goal\n- Ship it") as server:
        engine = get_summarizer("llm", model="openai/gpt-4o-mini", api_base=server.api_base, api_key="sk-test",
                                cache=MemoryCache(), base_delay=0.01)
        r = get_strategy("opencode", summarizer=engine).compress(session(turn(1, "data " * 200)), 400,
                                                                 counter="o200k_base")
    (request,) = server.requests
    history, prompt = request["messages"]
    assert history["role"] == "user" and "Request 1 about mod1.py." in history["content"]
    assert prompt == {"role": "user", "content": ap.OPENCODE_PROMPT}
    assert r.summary == "## Goal\n- Ship it" and r.messages[3].role == "assistant"
