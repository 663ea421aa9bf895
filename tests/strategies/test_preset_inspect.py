"""inspect_ai's presets against inspect_ai 0.3.285's compaction: the 0.9 threshold counted as
o200k x 1.1 (tools included), trim's 0.8 preserve with orphan repair and no trailing assistant,
extra passes while still over, edit's 3 kept tool results, and summary's system + input + summary."""

from __future__ import annotations

import json

from ctxlab.messages import Message, ToolCall
from ctxlab.strategies import get_strategy
from ctxlab.summarize import agent_prompts as ap
from ctxlab.tokens import get_counter
from tests.builders import Convo

INSPECT = get_counter("inspect_o200k")


def chat_session(replies: int) -> tuple[Message, ...]:
    """system, the input (first user message), then alternating assistant/user messages."""
    c = Convo().system().user("Task: write the report.")
    for i in range(replies):
        c.assistant(f"Draft {i}: " + "text " * 50).user(f"Revise section {i}.")
    return c.build()


def test_threshold_is_over_90_percent_of_the_window_counted_as_o200k_plus_10_percent() -> None:
    m = chat_session(5)
    tools = [{"type": "function", "function": {"name": "read_file", "description": "Read a file.",
                                               "parameters": {"type": "object", "properties": {}}}}]
    total = INSPECT.count_messages(m, tools)
    at = next(b for b in range(total, 3 * total) if int(b * 0.9) == total)  # total == threshold: not over
    over = next(b for b in range(total, 3 * total) if int(b * 0.9) == total - 1)
    assert get_strategy("inspect_trim").compress(m, at, counter="o200k_base", tools=tools).messages == m
    assert get_strategy("inspect_trim").compress(m, over, counter="o200k_base", tools=tools).messages != m


def test_trim_keeps_system_input_and_the_last_80_percent() -> None:
    m = chat_session(5)  # system, input, then a conversation of 10 messages
    r = get_strategy("inspect_trim", passes=1).compress(m, 200, counter="o200k_base")
    dropped = int(10 * (1 - 0.8))
    assert dropped == 1  # inspect_ai's own arithmetic: 1 - 0.8 is 0.19999999999999996 in floating point
    assert [x.id for x in r.messages] == ["m0", "m1", *(f"m{i}" for i in range(2 + dropped, 12))]


def test_trim_repairs_orphans_and_never_ends_on_an_assistant_message() -> None:
    c = Convo().system().user("Task: audit the repo.")
    for i in range(4):
        c.tools(("read_file", f"file {i}"), ("grep", f"match {i}"))
    m = c.assistant("Audit done.").build()  # conversation: 4 x 3 messages + the final answer = 13
    r = get_strategy("inspect_trim", passes=1).compress(m, 100, counter="o200k_base")
    # int(13 * 0.2) = 2: the cut lands on a result (m4) whose call went: it goes too; "Audit done." is popped
    assert [x.id for x in r.messages] == ["m0", "m1", *(f"m{i}" for i in range(5, 14))]
    assert "m14" in r.dropped_ids


def test_trim_passes_again_while_still_over_the_threshold() -> None:
    m = chat_session(10)
    one = get_strategy("inspect_trim", passes=1).compress(m, 400, counter="o200k_base")
    more = get_strategy("inspect_trim").compress(m, 400, counter="o200k_base")
    passes = [e.payload["pass"] for e in more.events if e.name == "policy.compacted"]
    assert len(one.messages) == 2 + 20 - int(20 * (1 - 0.8)) and passes[0] == 1 and len(passes) > 1
    assert len(more.messages) < len(one.messages)
    assert INSPECT.count_messages(more.messages) <= int(400 * 0.9) or len(passes) == 4


def test_edit_clears_all_but_the_last_three_tool_results() -> None:
    c = Convo().system().user("Task: fix the bug.")
    for i in range(5):
        c.tools(("read_file", f"contents of f{i}.py"), text=f"Reading f{i}.")
    m = c.assistant("Found it.").build()
    r = get_strategy("inspect_edit").compress(m, 50, counter="o200k_base")
    results = [x for x in r.messages if x.role == "tool"]
    assert [x.text for x in results] == ["(Tool result removed)"] * 2 + [f"contents of f{i}.py" for i in (2, 3, 4)]
    assert all(x.tool_call_id for x in results) and r.messages[-1].role == "tool"  # trailing assistant stripped
    assert [x.id for x in r.messages if x.role == "assistant"] == [f"m{i}" for i in (2, 4, 6, 8, 10)]


def test_edit_never_clears_tool_search_results() -> None:
    search = ToolCall("s1", "tool_search", json.dumps({"query": "csv"}))
    m = (Message("user", "Parse the CSV.", id="u"), Message("assistant", None, id="a0", tool_calls=(search,)),
         Message("tool", "read_csv: reads a CSV file", id="t0", tool_call_id="s1"))
    calls = [ToolCall(f"c{i}", "read_file", "{}") for i in range(4)]
    m = (*m, *(x for i, call in enumerate(calls) for x in (
        Message("assistant", None, id=f"a{i + 1}", tool_calls=(call,)),
        Message("tool", f"out {i}", id=f"t{i + 1}", tool_call_id=call.id))), Message("user", "Next.", id="u2"))
    r = get_strategy("inspect_edit", mask_keep=1).compress(m, 10, counter="o200k_base")
    assert {x.id: x.text for x in r.messages}["t0"] == "read_csv: reads a CSV file"
    assert [x.id for x in r.messages if x.text == "(Tool result removed)"] == ["t1", "t2", "t3"]


def test_summary_keeps_system_input_and_the_summary_only() -> None:
    m = chat_session(5)[:-1]  # ends on an assistant draft: the newest user message is "Revise section 3."
    r = get_strategy("inspect_summary").compress(m, 200, counter="o200k_base")
    ids = [x.id if x.mark is None else "SUMMARY" for x in r.messages]
    assert ids == ["m0", "m1", "m9", "SUMMARY"]  # m9: the newest user message, which ctxlab pins
    note = r.messages[-1]
    assert note.role == "user" and note.text == ap.INSPECT_SUMMARY_WRAPPER.format(summary=r.summary)
    assert note.text.startswith("[CONTEXT COMPACTION SUMMARY]\n\n") and note.text.endswith(
        "Please continue working on this task from where you left off.")
    assert r.summary.startswith("1. Primary Request and Intent:")


def test_a_second_summary_starts_from_the_previous_one() -> None:
    old = Message("user", ap.INSPECT_SUMMARY_WRAPPER.format(summary="1. Primary Request and Intent:\n- Ship v2.0"),
                  id="old", mark="summary")
    m = (Message("system", "You write reports.", id="s"), Message("user", "Task: the report.", id="u0"),
         Message("assistant", "Before the summary: " + "x " * 300, id="gone"), old,
         Message("assistant", "Drafted section 1 in report.md.", id="a1"), Message("user", "Go on.", id="u1"))
    r = get_strategy("inspect_summary").compress(m, 100, counter="o200k_base")
    assert [x.id for x in r.messages if x.mark is None] == ["s", "u0", "u1"]
    assert "Ship v2.0" in r.summary and "Before the summary" not in r.summary
    assert set(r.messages[-1].source_ids) >= {"old", "a1"} and "gone" in r.dropped_ids
