"""`goose` against goose's context_mgmt/mod.rs @ 331a8429: the threshold (usage over 0.8 of the
context limit, strictly), everything summarized (not the system prompt), the continuation text
after the summary (another one in a tool loop), the newest user message last, and the tool
responses removed from the middle outward when the summarizer's request is too long."""

from __future__ import annotations

import json

from ctxlab.messages import Message, ToolCall
from ctxlab.strategies import get_strategy
from ctxlab.strategies.mechanics.middle_out import fit_input, middle_out
from ctxlab.summarize import agent_prompts as ap
from ctxlab.summarize import get_summarizer
from ctxlab.summarize.cache import MemoryCache
from ctxlab.tokens import get_counter
from tests.summarize.fake_openai import FakeOpenAI

SYSTEM = Message("system", "You are goose, a coding agent.", id="s")


def exchange(n: int, output: str) -> tuple[Message, Message]:
    call = ToolCall(f"c{n}", "developer__shell", json.dumps({"command": f"cat f{n}.txt"}))
    return Message("assistant", f"Reading f{n}.txt.", id=f"a{n}", tool_calls=(call,)), \
        Message("tool", output, id=f"t{n}", tool_call_id=f"c{n}")


def test_compacts_over_0_8_of_the_context_limit_strictly() -> None:
    trigger = get_strategy("goose").when()
    assert trigger.fires(80_001, 100_000) and not trigger.fires(80_000, 100_000)


def test_after_a_finished_turn_the_summary_the_conversation_continuation_and_the_user_message() -> None:
    messages = (SYSTEM, Message("user", "Count the lines of f0.txt.", id="u1"), *exchange(0, "42 lines"),
                Message("assistant", "It has 42 lines.", id="a9"), Message("user", "And f1.txt?", id="u2"))
    r = get_strategy("goose").compress(messages, 50, counter="o200k_base")
    assert [(m.role, m.mark, m.id) for m in r.messages] == [
        ("system", None, "s"), ("user", "summary", "summary@a9"), ("assistant", "marker", "summary@a9:ack"),
        ("user", None, "u2")]
    assert r.messages[2].text == ap.GOOSE_CONVERSATION_CONTINUATION
    assert r.messages[1].text == r.summary and r.summary.startswith("## Goal\n- Count the lines of f0.txt.")
    assert "s" not in r.messages[1].source_ids and "u2" not in r.messages[1].source_ids


def test_in_a_tool_loop_the_continuation_says_to_keep_calling_tools() -> None:
    messages = (SYSTEM, Message("user", "Count the lines of f0.txt.", id="u1"), *exchange(0, "42 lines"),
                *exchange(1, "7 lines"))
    r = get_strategy("goose").compress(messages, 50, counter="o200k_base")
    assert [m.id for m in r.messages][::3] == ["s", "u1"] and r.messages[2].text == ap.GOOSE_TOOL_LOOP_CONTINUATION


def test_tool_responses_go_from_the_middle_outward() -> None:
    positions = [f"p{i}" for i in range(10)]
    assert middle_out(positions, 10) == ["p4"]
    assert middle_out(positions, 20) == ["p4", "p5"]
    assert middle_out(positions, 50) == ["p4", "p5", "p3", "p6", "p2"]
    assert middle_out(positions, 100) == [f"p{i}" for i in (4, 5, 3, 6, 2, 7, 1, 8, 0, 9)]
    assert middle_out(positions[:3], 10) == ["p0"]  # at least one
    assert middle_out(positions, 0) == []


def test_the_first_removal_level_that_fits_is_summarized() -> None:
    counter = get_counter("o200k_base")
    messages = [m for n in range(10) for m in exchange(n, f"out{n} " * 200)]
    one = counter.count_message(messages[1])
    kept, level = fit_input(messages, counter.count_messages(messages) - one // 2, counter)
    assert level == 10 and [m.id for m in messages if m not in kept] == ["t4"]
    kept, level = fit_input(messages, 10, counter)
    assert level == 100 and not any(m.role == "tool" for m in kept)  # goose gives up; ctxlab sends the rest


def test_llm_request_renders_the_template_and_drops_middle_responses_on_overflow() -> None:
    messages = (SYSTEM, Message("user", "Read every file.", id="u1"),
                *(m for n in range(10) for m in exchange(n, f"out{n} " * 200)), Message("user", "Done?", id="u2"))
    counter = get_counter("o200k_base")
    limit = counter.count_messages(messages[1:]) - counter.count_message(messages[3]) * 3 // 2  # one is not enough
    with FakeOpenAI(reply="## Goal\n- Read files") as server:
        engine = get_summarizer("llm", model="openai/gpt-4o-mini", api_base=server.api_base, api_key="sk-test",
                                cache=MemoryCache(), base_delay=0.01)
        r = get_strategy("goose", summarizer=engine, summary_input_tokens=limit).compress(messages, 100,
                                                                                         counter="o200k_base")
    (request,) = server.requests
    system, user = request["messages"]
    assert user == {"role": "user", "content": ap.GOOSE_REQUEST}
    head, _, rest = ap.GOOSE_COMPACTION_PROMPT.partition("{messages}")
    assert system["content"].startswith(head) and system["content"].endswith(rest)
    assert "You are goose" not in system["content"]
    assert [n for n in range(10) if f"out{n} out{n}" not in system["content"]] == [4, 5]  # the 20% level
    assert r.summary == "## Goal\n- Read files"
