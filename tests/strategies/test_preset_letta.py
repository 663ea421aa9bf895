"""`letta` against Letta's V1 summarizer (letta-ai/letta @ 56ba9c25): the trigger over 0.9 of the
window, the sliding-window cutoff (from 40% of the messages up by tenths, Python's rounding and
float steps, backed to an assistant message, until the rest fits in 70% of the window), the
fallback to summarizing everything, the 50,000-character clip and the ``system_alert`` note."""

from __future__ import annotations

import json

from ctxlab.messages import Message, ToolCall
from ctxlab.strategies import get_strategy
from ctxlab.strategies.mechanics.evict import evict_cutoff
from ctxlab.summarize import agent_prompts as ap
from ctxlab.summarize import get_summarizer
from ctxlab.summarize.cache import MemoryCache
from tests.builders import prose
from tests.summarize.fake_openai import FakeOpenAI

ROLES = ["system", *("assistant" if i % 2 else "user" for i in range(1, 21))]  # odd indices answer


def sized(tokens: int, tag: str) -> str:
    """`tokens` under chars4: a sentence naming `tag`, then filler words."""
    return (f"Step {tag} edited {tag}.py. " + prose(4 * tokens))[:4 * tokens]


def conversation(tokens: int = 5000) -> tuple[Message, ...]:
    """System, then 20 alternating messages (user at even indices) of `tokens` each."""
    return (Message("system", "You are a Letta agent.", id="s"),
            *(Message(role, sized(tokens, f"m{i}"), id=f"m{i}") for i, role in enumerate(ROLES[1:], 1)))


def test_compacts_over_0_9_of_the_window_strictly() -> None:
    trigger = get_strategy("letta").when()
    assert trigger.fires(90_001, 100_000) and not trigger.fires(90_000, 100_000)


def test_cutoff_grows_by_tenths_until_the_rest_fits_in_70_percent() -> None:
    """0.4 x 21 = 8.4 -> 8, back to the assistant at 7: 14 x 5,000 = 70,000, not under 70,000; 0.5 x 21 =
    10.5 -> 10 (banker's rounding), back to 9: 60,000 fits."""
    tried: list[int] = []

    def kept(i: int) -> int:
        tried.append(i)
        return (21 - i) * 5000

    assert evict_cutoff(ROLES, kept, 100_000, 0.3) == 9 and tried == [7, 9]


def test_the_share_steps_in_floats_and_fails_past_one() -> None:
    """0.3 + 0.1 ... : cuts 8, 10, 13, 15, 17, 19, 21 (0.9999999999999999 x 21), then 23 (1.0999...):
    one attempt past 1.0 is made, and then no cutoff."""
    tried: list[int] = []
    assert evict_cutoff(ROLES, lambda i: tried.append(i) or 10**9, 100_000, 0.3) is None
    assert tried == [7, 9, 13, 15, 17, 19, 19, 19]


def test_a_cut_on_a_tool_result_moves_down_to_the_assistant_that_called() -> None:
    roles = ["system", "user", "assistant", "tool", "tool", "assistant", "user"]
    assert evict_cutoff(roles, lambda i: 0, 100, 0.3) == 2  # 0.4 x 7 = 2.8 -> 3 (a result) -> 2


def test_no_assistant_message_or_one_at_the_end_means_no_cutoff() -> None:
    assert evict_cutoff(["system", "user", "user", "user"], lambda i: 0, 100, 0.3) is None
    assert evict_cutoff(["system", "user", "assistant"], lambda i: 0, 100, 0.3) is None


def test_sliding_window_summary_is_a_system_alert_after_the_system_prompt() -> None:
    r = get_strategy("letta").compress(conversation(), 100_000, counter="chars4")
    assert [m.id for m in r.messages if m.mark is None] == ["s", *(f"m{i}" for i in range(9, 21))]
    note = r.messages[1]
    alert = json.loads(note.text)
    assert alert["type"] == "system_alert" and set(alert) == {"type", "message"}
    assert alert["message"] == ap.LETTA_SUMMARY_WRAPPER.format(evicted=7, summary=r.summary)  # 21 - (13 + 1)
    assert set(note.source_ids) == {f"m{i}" for i in range(1, 9)}


def test_no_cutoff_summarizes_everything_after_the_system_prompt() -> None:
    messages = (Message("system", "You are a Letta agent.", id="s"),
                *(Message("user", sized(5000, f"u{i}"), id=f"u{i}") for i in range(20)))
    r = get_strategy("letta").compress(messages, 100_000, counter="chars4")
    assert [m.id for m in r.messages if m.mark is None] == ["s", "u19"]  # ctxlab keeps the newest user message
    assert "s" not in r.messages[1].source_ids


def test_still_over_the_trigger_after_the_sliding_window_it_summarizes_everything() -> None:
    tools = [{"type": "function", "function": {"name": "archival_search", "description": "d " * 60_000,
                                               "parameters": {"type": "object"}}}]
    call = ToolCall("c1", "archival_search", json.dumps({"query": "notes"}))
    messages = (Message("system", "You are a Letta agent.", id="s"),
                *(Message(role, sized(4500, f"m{i}"), id=f"m{i}") for i, role in enumerate(ROLES[1:], 1)),
                Message("assistant", None, id="c", tool_calls=(call,)), Message("tool", "found", id="t", tool_call_id="c1"))
    r = get_strategy("letta").compress(messages, 100_000, counter="o200k_base", tools=tools)
    # the cutoff counts messages only; with the tools' 60k the rest is still over 90k: everything goes
    assert [e.payload["pass"] for e in r.events if e.name == "policy.compacted"] == [1, 2]
    assert [m.id for m in r.messages if m.mark is None] == ["s", "m20"]


def test_llm_summary_is_clipped_at_50000_characters() -> None:
    with FakeOpenAI(reply="s" * 60_000) as server:
        engine = get_summarizer("llm", model="openai/gpt-4o-mini", api_base=server.api_base, api_key="sk-test",
                                cache=MemoryCache(), base_delay=0.01)
        r = get_strategy("letta", summarizer=engine, summary_max_tokens=100_000).compress(conversation(), 100_000,
                                                                                          counter="chars4")
    (request,) = server.requests
    assert request["messages"][0] == {"role": "system", "content": ap.LETTA_SLIDING_PROMPT}
    assert request["messages"][1]["role"] == "user" and "Step m1 edited m1.py." in request["messages"][1]["content"]
    assert r.summary == "s" * 50_000 + "... [summary truncated to fit]"
