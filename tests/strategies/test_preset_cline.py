"""`cline` against Cline's SDK context compaction (cline/cline @ 21cb8d25, context/ @ 8bbdde2a):
the trigger at 0.9 of 0.9 of the window, the targets, ``findCutIndex`` (preserve, the newest typed
turn whole, safe boundaries), the summary request (tool results cut to 2,000 characters, the
previous summary handed over) and the ``Context summary:`` message with its ``## Files``."""

from __future__ import annotations

import json

from ctxlab.messages import Message, ToolCall
from ctxlab.strategies import get_strategy
from ctxlab.strategies.mechanics import safe_cut as cc
from ctxlab.summarize import agent_prompts as ap
from ctxlab.summarize import get_summarizer
from ctxlab.summarize.cache import MemoryCache
from tests.builders import prose
from tests.summarize.fake_openai import FakeOpenAI

LONG = prose(10_000)


def read(n: int, path: str, text: str, tool: str = "read_files") -> tuple[Message, Message]:
    call = ToolCall(f"c{n}", tool, json.dumps({"path": path}))
    return (Message("assistant", f"Reading {path}.", id=f"a{n}", tool_calls=(call,)),
            Message("tool", text, id=f"t{n}", tool_call_id=f"c{n}"))


def test_trigger_is_0_9_of_0_9_of_the_window_inclusive_on_json_over_three() -> None:
    trigger = get_strategy("cline").when()
    assert trigger.counter == "cline_json3" and trigger.threshold(200_000) == 162_000
    assert trigger.fires(162_000, 200_000) and not trigger.fires(161_999, 200_000)


def test_request_target_is_0_7_of_the_trigger_or_half_the_input_after_five_exchanges() -> None:
    assert cc.request_target(180_000, 162_000, pairs=3, max_output=32_000) == 113_400
    assert cc.request_target(180_000, 162_000, pairs=6, max_output=32_000) == 90_000
    assert cc.request_target(180_000, 162_000, pairs=6, max_output=0) == 113_400  # max output unknown
    assert cc.request_target(180_000, 162_000, pairs=6, max_output=200_000) == 113_400  # not below the input
    assert cc.request_target(10, 1.5, pairs=0, max_output=0) == 1  # at least 1, below the trigger


def test_pairs_count_tool_results_as_user_turns() -> None:
    messages = [Message("user", "go", id="u"), *read(0, "a.py", "x"), *read(1, "b.py", "y"),
                Message("assistant", "done", id="z")]
    assert cc.user_assistant_pairs(messages) == 3  # u -> a0, t0 -> a1, t1 -> z
    assert cc.user_assistant_pairs(messages[:-1]) == 2


def test_preserve_is_capped_by_what_the_target_leaves_for_messages() -> None:
    assert cc.preserve_tokens(20_000, 113_400, overhead=100_000) == 13_400
    assert cc.preserve_tokens(20_000, 113_400, overhead=1_000) == 20_000
    assert cc.preserve_tokens(20_000, 500, overhead=1_000) == 1


def test_a_cut_on_a_tool_result_moves_back_to_the_assistant_that_called() -> None:
    messages = [Message("user", "task", id="u"), *read(0, "a.py", "x" * 90), *read(1, "b.py", "y" * 90)]
    counts = [1, 1, 1, 1, 100]
    assert cc.find_cut(messages, counts, 100, 0) == 3  # the walk stops on t1; a1 starts the kept part


def test_the_newest_typed_user_turn_is_kept_whole() -> None:
    messages = [Message("user", "one", id="u1"), Message("assistant", "ok", id="x1"),
                Message("user", "two", id="u2"), *read(0, "a.py", "big"), Message("assistant", "done", id="x2")]
    assert cc.find_cut(messages, [1, 1, 1, 1, 50_000, 1], 20_000, 0) == 2
    assert cc.find_cut(messages, [1] * 6, 20_000, 0) is None  # everything fits: nothing to compact


def session() -> tuple[Message, ...]:
    return (Message("system", "You are Cline.", id="s"), Message("user", "Fix parse.py and api.py.", id="u1"),
            *read(0, "src/parse.py", LONG), *read(1, "src/api.py", "q" * 300, tool="editor"),
            Message("assistant", "Both fixed.", id="x1"), Message("user", "Now the docs.", id="u2"),
            Message("assistant", "Writing docs.", id="x2"))


def test_summary_is_a_context_summary_user_message_with_files() -> None:
    r = get_strategy("cline", keep_tokens=10).compress(session(), 1000, counter="o200k_base")
    assert [m.id for m in r.messages if m.mark is None] == ["s", "u2", "x2"]  # the newest typed turn whole
    note = r.messages[1]
    assert (note.role, note.mark) == ("user", "summary") and note.text == "Context summary:\n\n" + r.summary
    assert r.summary.endswith("## Files\nRead:\n- src/parse.py\nModified:\n- src/api.py")
    assert r.summary.startswith("## Goal\n- Fix parse.py and api.py.")


def test_files_section_is_kept_when_the_summary_has_one_and_lists_none_otherwise() -> None:
    assert cc.ensure_files("## Goal\n- x\n\n## Files\nRead: a", [], ["b"]) == "## Goal\n- x\n\n## Files\nRead: a"
    assert cc.ensure_files("## Goal\n- x", [], []).endswith("## Files\nRead:\n- none\nModified:\n- none")
    assert cc.files_of("## Files\nRead:\n- a.py\nModified:\n- none\n## Next\n- go") == (["a.py"], [])


def test_llm_request_cuts_tool_results_and_hands_over_the_previous_summary() -> None:
    earlier = Message("user", "Context summary:\n\n## Goal\n- Port io.py\n\n## Files\nRead:\n- io.py\nModified:\n- none",
                      id="old", mark="summary", source_ids=("o1",))
    messages = (session()[0], earlier, *session()[1:])
    with FakeOpenAI(reply="## Goal\n- Fix parsing") as server:
        engine = get_summarizer("llm", model="openai/gpt-4o-mini", api_base=server.api_base, api_key="sk-test",
                                cache=MemoryCache(), base_delay=0.01)
        r = get_strategy("cline", keep_tokens=10, summarizer=engine).compress(messages, 1000, counter="o200k_base")
    (request,) = server.requests
    system, body = request["messages"]
    assert system == {"role": "system", "content": ap.CLINE_SYSTEM_PROMPT}
    text = body["content"]
    assert text.startswith(ap.CLINE_SUMMARY_REQUEST.format(read="src/parse.py", edited="src/api.py"))
    assert "\n\nPrevious summary:\n## Goal\n- Port io.py" in text and "\n\nConversation:\n" in text
    assert f"{LONG[:2000]}\n...[truncated {len(LONG) - 2000} chars]" in text and LONG[:2001] not in text
    # the model wrote no ## Files: Cline's section follows, the previous summary's files carried
    assert r.summary == "## Goal\n- Fix parsing\n\n## Files\nRead:\n- io.py\n- src/parse.py\nModified:\n- src/api.py"
    assert "old" in r.messages[1].source_ids
