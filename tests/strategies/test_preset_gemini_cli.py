"""`gemini_cli` against Gemini CLI's chatCompressionService.ts and toolOutputMaskingService.ts
(google-gemini/gemini-cli @ 5411f113, services @ 4a5d5cfc): the 0.5 trigger, the split at 70% of
the history's JSON characters on a real user message, the 50,000-token budget of whole tool
outputs, the snapshot and its acknowledgement, the refused inflation, and the masking of old tool
outputs (protect 50,000, mask at 30,000 or more, latest turn and exempt tools skipped)."""

from __future__ import annotations

import json

import pytest

from ctxlab.messages import Message, ToolCall
from ctxlab.strategies import get_strategy
from ctxlab.strategies.mechanics import char_share as gh
from ctxlab.summarize import agent_prompts as ap
from ctxlab.summarize import get_summarizer
from ctxlab.summarize.cache import MemoryCache
from ctxlab.tokens import get_counter
from tests.summarize.fake_openai import FakeOpenAI

HUGE = 10_000_000  # a window the trigger never reaches: only the masking acts


def out(tokens: int) -> str:
    """A tool output of exactly `tokens` under gemini_chars4: (len(JSON {"output": text})) / 4."""
    return "x" * (4 * tokens - 13)


def exchange(n: int, text: str, tool: str = "read_file") -> tuple[Message, Message]:
    call = ToolCall(f"c{n}", tool, json.dumps({"path": f"f{n}.py"}))
    return Message("assistant", None, id=f"a{n}", tool_calls=(call,)), Message("tool", text, id=f"t{n}", tool_call_id=f"c{n}")


def loop(*outputs: str, tools: tuple[str, ...] = ()) -> tuple[Message, ...]:
    """A task, then one exchange per output (oldest first); the last exchange is the request being built."""
    messages = [Message("system", "You code.", id="s"), Message("user", "Refactor the loader.", id="u")]
    for n, text in enumerate(outputs):
        messages += exchange(n, text, tools[n] if n < len(tools) else "read_file")
    return tuple(messages)


def masked(result) -> list[str]:
    return [m.id for m in result.messages if m.mark == "truncated"]


def test_compresses_at_half_the_window_inclusive() -> None:
    trigger = get_strategy("gemini_cli").when()
    assert trigger.fires(524_288, 1_048_576) and not trigger.fires(524_287, 1_048_576)  # tokenLimit 1,048,576


def test_masks_every_prunable_output_past_the_protected_50k_when_30k_or_more_would_go() -> None:
    """Newest first 30k (protected), 25k crosses 50k (prunable), 20k, 15k: 60k >= 30k, all three go."""
    r = get_strategy("gemini_cli").compress(loop(out(15_000), out(20_000), out(25_000), out(30_000), "pending"), HUGE,
                                            counter="o200k_base")
    assert masked(r) == ["t0", "t1", "t2"]
    assert [e.payload["outputs"] for e in r.events if e.name == "policy.pruned"] == [3]
    cleared = r.messages[3]
    assert cleared.text.startswith('<tool_output_masked>\n{\n  "output": "xxx')
    assert cleared.text.endswith("\n\nOutput too large. Full output available at: tool-outputs/read_file_c0.txt\n"
                                 "</tool_output_masked>")
    assert "\n... [TRUNCATED] ...\n" in cleared.text


@pytest.mark.parametrize(("oldest", "expected"), [(5_000, ["t0", "t1"]), (4_999, [])])
def test_masks_only_when_at_least_30k_are_prunable(oldest: int, expected: list[str]) -> None:
    """25k crosses the protected 50k: with 5k older, 30k are prunable (masked); with 4,999, 29,999 (kept)."""
    r = get_strategy("gemini_cli").compress(loop(out(oldest), out(25_000), out(30_000), "pending"), HUGE,
                                            counter="o200k_base")
    assert masked(r) == expected


def test_the_request_being_built_and_the_latest_turn_are_never_counted() -> None:
    """The pending tool result (60k) is not in Gemini CLI's history yet: the older 35k stays protected.
    Counted, it would cross the protected 50k itself and take the 35k with it (95k prunable)."""
    session = loop(out(35_000), out(60_000))
    assert masked(get_strategy("gemini_cli").compress(session, HUGE, counter="o200k_base")) == []
    assert masked(get_strategy("gemini_cli", prune_skip_messages=0).compress(session, HUGE,
                                                                             counter="o200k_base")) == ["t0", "t1"]


def test_exempt_tools_and_masked_outputs_are_passed_over() -> None:
    earlier = ap.GEMINI_MASKED.format(preview="{}", path="tool-outputs/x.txt")
    session = loop(out(60_000), out(35_000), earlier, out(30_000), out(25_000), "pending", tools=("activate_skill",))
    r = get_strategy("gemini_cli").compress(session, HUGE, counter="o200k_base")
    # 25k, 30k (crosses 50k), the masked t2 passed over, 35k: 65k prunable; t0 (a skill) untouched
    assert masked(r) == ["t1", "t3"] and r.messages[7] == session[7] and r.messages[3] == session[3]


def test_a_shell_preview_keeps_its_sections_and_ten_lines_each_side() -> None:
    lines = "\n".join(f"line {i}" for i in range(30))
    shown = gh.preview("run_shell_command", f"Output: {lines}\nExit Code: 1")
    assert shown.startswith("Output: line 0\n") and "\n\n... [10 lines omitted] ...\n\nline 20\n" in shown
    assert shown.endswith("line 29\nExit Code: 1")
    assert gh.preview("grep", "short") == '{\n  "output": "short"\n}'


def test_split_point_is_the_first_user_message_past_70_percent_of_the_characters() -> None:
    """findCompressSplitPoint: [u 1k, m 1k, u 1k, m 5k, u 1k, m 1k]: 8k before the third user message >= 7k."""
    users = [True, False, True, False, True, False]
    assert gh.split_point([1000, 1000, 1000, 5000, 1000, 1000], users, 0.7, final_answer=True) == 4
    # no user message past the target: everything when the history ends with a final answer, else the last seen
    assert gh.split_point([1000, 9000], [True, False], 0.7, final_answer=True) == 2
    assert gh.split_point([1000, 1000, 1000, 9000], [True, False, True, False], 0.7, final_answer=False) == 2
    assert gh.split_point([1000, 9000, 9000], [True, False, False], 0.7, final_answer=False) == 0


def chat_turns() -> tuple[Message, ...]:
    texts = [("u1", "Port the parser to parse.py."), ("a1", "p" * 1000), ("u2", "Keep the old API in api.py."),
             ("a2", "q" * 5000), ("u3", "Now the tests in test_parse.py."), ("a3", "Done, 12 pass.")]
    return (Message("system", "You code.", id="s"), *(Message("user" if i[0] == "u" else "assistant", t, id=i)
                                                     for i, t in texts), Message("user", "Commit it.", id="u4"))


def test_keeps_the_newest_30_percent_of_the_history_after_the_snapshot_and_its_acknowledgement() -> None:
    r = get_strategy("gemini_cli").compress(chat_turns(), 3000, counter="o200k_base")
    assert [m.id for m in r.messages if m.mark is None] == ["s", "u3", "a3", "u4"]
    snapshot, ack = r.messages[1], r.messages[2]
    assert (snapshot.role, snapshot.mark) == ("user", "summary") and snapshot.text.startswith("<state_snapshot>\n")
    assert (ack.role, ack.mark, ack.text) == ("assistant", "marker", "Got it. Thanks for the additional context!")
    assert "parse.py" in r.summary and set(snapshot.source_ids) == {"u1", "a1", "u2", "a2"}


def test_a_history_ending_with_a_final_answer_is_compressed_whole() -> None:
    session = (Message("system", "You code.", id="s"), Message("user", "Explain io.py " + "w " * 900, id="u1"),
               Message("assistant", "It reads files. " * 200, id="a1"), Message("user", "Thanks.", id="u2"))
    r = get_strategy("gemini_cli").compress(session, 1000, counter="o200k_base")
    assert [(m.id, m.mark) for m in r.messages][::3] == [("s", None), ("u2", None)] and len(r.messages) == 4


def test_nothing_to_compress_mid_loop_leaves_the_request_unchanged() -> None:
    session = loop("o" * 8000)  # the only user message opens the history: split point 0
    r = get_strategy("gemini_cli").compress(session, 1000, counter="o200k_base")
    assert r.messages == session


def test_a_compression_that_would_grow_the_request_is_refused() -> None:
    session = (Message("system", "You code.", id="s"), Message("user", "hi", id="u1"),
               Message("assistant", "ok", id="a1"), Message("user", "go", id="u2"))
    r = get_strategy("gemini_cli").compress(session, 10, counter="o200k_base")
    assert r.messages == session and [e.name for e in r.events] == ["policy.refused"]


def test_older_outputs_past_the_50k_budget_are_cut_to_a_fifth_head_and_four_fifths_tail() -> None:
    """truncateHistoryToBudget then formatTruncatedToolOutput: newest first 20k, 20k whole; the third
    crosses 50k and is cut to min(4 x tokens left, 40,000) characters, 8,000 + 32,000."""
    tail = [m for n in (5, 6, 7) for m in exchange(n, "y" * 80_000)]
    session = (Message("system", "You code.", id="s"), Message("user", "Audit the repo.", id="u1"),
               Message("assistant", "z " * 350_000, id="a1"), Message("user", "Now the outputs.", id="u2"), *tail,
               Message("assistant", "Read.", id="a8"), Message("user", "Summarize them.", id="u3"))
    total = get_counter("o200k_base").count_messages(session)
    r = get_strategy("gemini_cli").compress(session, total + 20_000, counter="o200k_base")
    kept = {m.id: m for m in r.messages}
    assert "a1" not in kept and {"u2", "t5", "t6", "t7", "u3"} <= set(kept)
    assert kept["t6"].text == kept["t7"].text == "y" * 80_000
    assert kept["t5"].text.startswith("Output too large. Showing first 8,000 and last 32,000 characters. "
                                      "For full output see: tool-outputs/c5.txt\n" + "y" * 8000 + "\n\n... [40,000 "
                                      "characters omitted] ...\n\n")


def test_budget_cuts_count_the_cut_output_toward_the_budget() -> None:
    texts = [Message("tool", "k" * 80_000, id=f"t{i}", tool_call_id=f"c{i}") for i in range(5)]
    count = get_counter("gemini_chars4").count
    cuts = gh.budget_cuts(texts, range(5), count, 50_000, 40_000)
    assert sorted(cuts) == [0, 1, 2]  # 20k + 20k whole; then 10k-token cuts
    assert gh.truncated_output("abc", 2, "p") != "abc" and gh.truncated_output("ab", 2, "p") == "ab"


@pytest.fixture
def llm():
    replies = iter(["<state_snapshot>first</state_snapshot>", "<state_snapshot>final</state_snapshot>"] * 4)
    with FakeOpenAI(reply_fn=lambda request: next(replies)) as server:
        yield server, get_summarizer("llm", model="openai/gpt-4o-mini", api_base=server.api_base, api_key="sk-test",
                                     cache=MemoryCache(), base_delay=0.01)


def test_llm_writes_the_snapshot_then_the_probe_critiques_it(llm) -> None:
    server, engine = llm
    r = get_strategy("gemini_cli", summarizer=engine).compress(chat_turns(), 3000, counter="o200k_base")
    first, probe = server.requests
    assert first["messages"][0] == {"role": "system", "content": ap.GEMINI_COMPRESSION_PROMPT}
    assert first["messages"][-1]["content"] == ap.GEMINI_ANCHOR_NEW + ap.GEMINI_SCRATCHPAD
    assert probe["messages"][-2] == {"role": "assistant", "content": "<state_snapshot>first</state_snapshot>"}
    assert probe["messages"][-1]["content"] == ap.GEMINI_PROBE
    assert r.summary == "<state_snapshot>final</state_snapshot>"
    (call,) = [e for e in r.events if e.name == "summary_call"]
    assert call.payload["input_tokens"] == 2400  # both calls' usage


def test_llm_integrates_a_previous_snapshot(llm) -> None:
    server, engine = llm
    earlier = Message("user", "<state_snapshot><overall_goal>Port it</overall_goal></state_snapshot>", id="old",
                      mark="summary", source_ids=("x",))
    session = (chat_turns()[0], earlier, *chat_turns()[1:])
    get_strategy("gemini_cli", summarizer=engine).compress(session, 3000, counter="o200k_base")
    assert server.requests[0]["messages"][-1]["content"].startswith(ap.GEMINI_ANCHOR_PREVIOUS)


def test_offline_a_previous_snapshot_is_read_back_and_carried() -> None:
    earlier = Message("user", "<state_snapshot>\n<overall_goal>\n- Port the parser to parse.py\n</overall_goal>\n"
                              "<active_constraints>\n- Never touch legacy/\n</active_constraints>\n</state_snapshot>",
                      id="old", mark="summary", source_ids=("x",))
    session = (chat_turns()[0], earlier, Message("assistant", ap.GEMINI_ACK, id="ack"), *chat_turns()[1:])
    r = get_strategy("gemini_cli").compress(session, 3000, counter="o200k_base")
    assert "<overall_goal>\n- Port the parser to parse.py" in r.summary
    assert "<active_constraints>\n- Never touch legacy/" in r.summary and "old" in r.messages[1].source_ids
