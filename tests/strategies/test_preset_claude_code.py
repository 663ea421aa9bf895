"""`claude_code` against Claude Code's auto-compact, rule by rule: the threshold ``window -
min(max output, 20000) - 13000`` reached (``>=``), counted from the previous call's recorded prompt
plus the messages after it (the request's own counter without recorded usage), everything
summarized into one continuation message after the system prompt; and on the two real 2.1.39
sessions, the very call where Claude Code compacted."""

from __future__ import annotations

from pathlib import Path

import pytest

from ctxlab.datasets import load_conversations
from ctxlab.messages import Message, ToolCall
from ctxlab.replay.steps import replay_steps
from ctxlab.strategies import get_strategy
from ctxlab.strategies.base import FIRED
from ctxlab.strategies.mechanics.integrity import DROPPED_PINNED
from ctxlab.strategies.signals import Recorded
from ctxlab.summarize import agent_prompts as ap
from ctxlab.summarize import get_summarizer
from ctxlab.summarize.cache import MemoryCache
from ctxlab.tokens import get_counter
from tests.summarize.fake_openai import FakeOpenAI

WINDOW = 200_000
CHARS4 = get_counter("chars4")
REAL = Path(__file__).resolve().parents[2] / ".." / "shared" / "reallogs" / "claude_code"
# The two sessions that compacted automatically (compact_boundary preTokens 170,251 and 167,117).
SESSIONS = {"4d5611e5-241a-462a-8d15-5122611a9569": 170_251, "fa812bfe-b295-4cca-9c2f-fdf01028cb46": 167_117}


def text(tokens: int, fill: str = "x") -> str:
    """Exactly `tokens` chars4 tokens."""
    return fill * (4 * tokens)


def session(last: int) -> tuple[Message, ...]:
    """system, a task, a read and its result, an answer, a new request of `last` tokens (chars4):
    1000 + 500 + 4 + 50_000 + 500 + `last` tokens."""
    return (Message("system", text(1000), id="s"), Message("user", text(500, "t"), id="u1"),
            Message("assistant", None, id="a1", tool_calls=(ToolCall("c1", "Read", '{"p": "a"}'),)),
            Message("tool", text(50_000, "r"), id="t1", tool_call_id="c1"),
            Message("assistant", text(500, "d"), id="a2"), Message("user", text(last, "q"), id="u2"))


def test_the_threshold_is_window_less_the_reply_less_13000_reached() -> None:
    s = get_strategy("claude_code")
    assert s.when().threshold(WINDOW) == 167_000
    assert s.when().inclusive  # ">= threshold"
    messages = session(1)
    total = CHARS4.count_messages(messages)
    assert total == 52_005
    assert get_strategy("claude_code").compress(messages, WINDOW, counter="chars4").messages == messages
    # A window where the request is exactly the threshold, then one where it is one token short.
    at = get_strategy("claude_code", context_window=total + 33_000).compress(messages, WINDOW, counter="chars4")
    short = get_strategy("claude_code", context_window=total + 1 + 33_000).compress(messages, WINDOW, counter="chars4")
    assert len(at.messages) == 2 and short.messages == messages


def test_the_reply_room_is_the_models_max_output_at_most_20000() -> None:
    small = get_strategy("claude_code", model="anthropic.claude-3-5-sonnet-20241022-v2:0")  # max output 8192
    large = get_strategy("claude_code", model="claude-sonnet-4-5")  # max output 64,000
    assert small.when().threshold(WINDOW) == WINDOW - 8192 - 13_000
    assert large.when().threshold(WINDOW) == 167_000


def test_the_percentage_override_is_a_share_of_the_window_less_the_reply_never_higher() -> None:
    s = get_strategy("claude_code", trigger="share", trigger_share=0.8)  # CLAUDE_AUTOCOMPACT_PCT_OVERRIDE=80
    assert s.when().threshold(WINDOW) == int((WINDOW - 20_000) * 0.8) == 144_000
    # It only lowers the threshold: 95% of 180,000 is 171,000, above the default 167,000.
    assert get_strategy("claude_code", trigger="share", trigger_share=0.95).when().threshold(WINDOW) == 167_000


def test_recorded_usage_counts_the_previous_prompt_plus_every_message_after_it() -> None:
    messages = session(1)  # the call at index 4 (a2) recorded a prompt of 166,000 tokens
    s = get_strategy("claude_code")
    under = s.compress(messages, WINDOW, counter="chars4", recorded=[Recorded(4, 166_000, 7)])
    assert under.messages == messages  # 166,000 + a2 (500) + u2 (1) = 166,501 < 167,000
    over = s.compress(messages, WINDOW, counter="chars4", recorded=[Recorded(2, 120_000), Recorded(4, 166_499, 7)])
    (fired,) = [e.payload for e in over.events if e.name == FIRED]
    assert fired["signal"] == "recorded usage" and fired["tokens"] == 167_000 and fired["threshold"] == 167_000
    assert (fired["anchor_index"], fired["anchor_prompt"]) == (4, 166_499)  # the newest call, output ignored
    assert len(over.messages) == 2


def test_a_call_whose_reply_is_not_in_the_request_is_not_used() -> None:
    # A call at index 6 would be this very request's (or a later) call: never the future.
    messages = session(1)
    r = get_strategy("claude_code").compress(messages, WINDOW, counter="chars4", recorded=[Recorded(6, 190_000)])
    assert r.messages == messages


def test_without_recorded_usage_the_request_counter_counts_everything() -> None:
    messages = session(115_000)
    r = get_strategy("claude_code").compress(messages, WINDOW, counter="chars4")
    (fired,) = [e.payload for e in r.events if e.name == FIRED]
    assert fired["signal"] == "counter chars4" and fired["tokens"] == 167_004 and fired["anchor_index"] is None


def test_everything_but_the_system_prompt_becomes_one_continuation_summary() -> None:
    messages = session(115_000)
    r = get_strategy("claude_code").compress(messages, WINDOW, counter="chars4")
    system, note = r.messages
    assert system is messages[0] and note.role == "user" and note.mark == "summary"
    assert note.text.startswith(ap.CLAUDE_CODE_SUMMARY_WRAPPER.split("{summary}")[0])
    assert note.text.endswith(ap.CLAUDE_CODE_SUMMARY_WRAPPER.split("{summary}")[1])
    assert set(r.dropped_ids) == {"u1", "a1", "t1", "a2", "u2"}
    # The newest user message is summarized away too, as in Claude Code, and reported.
    assert [e.payload["ids"] for e in r.events if e.name == DROPPED_PINNED] == [["u2"]]
    assert "1. Primary Request and Intent:" in r.summary


def test_an_earlier_summary_is_summarized_again_with_the_rest() -> None:
    s = get_strategy("claude_code")
    first = s.compress(session(115_000), WINDOW, counter="chars4").messages
    later = (*first, Message("assistant", text(1000, "n"), id="a3"), Message("user", text(170_000, "w"), id="u3"))
    system, note = s.compress(later, WINDOW, counter="chars4").messages
    assert note.mark == "summary" and set(note.source_ids) >= {"u1", "t1", "u2", "a3", "u3"}


@pytest.fixture
def fake(tmp_path, monkeypatch):
    monkeypatch.setenv("CTXLAB_LLM_CACHE", str(tmp_path / "calls.duckdb"))
    reply = "<analysis>\nThe user asked for a fix.\n</analysis>\n\n\n\n<summary>\n1. Primary Request and Intent:\n   Fix it.\n</summary>"
    with FakeOpenAI(reply=reply) as server:
        yield server, get_summarizer("llm", model="openai/gpt-4o-mini", api_base=server.api_base, api_key="sk-test",
                                     cache=MemoryCache(), base_delay=0.01, attempts=1)


def test_with_an_llm_the_nine_section_prompt_and_claude_codes_formatting(fake) -> None:
    server, engine = fake
    r = get_strategy("claude_code", summarizer=engine, summary_instructions="Keep every file path.").compress(
        session(115_000), WINDOW, counter="chars4")
    (sent,) = server.prompts()
    assert ap.INSPECT_SUMMARY_PROMPT.format(addendums="Keep every file path.").strip() in sent
    # Claude Code keeps the analysis: tags become labels, blank-line runs collapse.
    assert r.summary == "Analysis:\nThe user asked for a fix.\n\nSummary:\n1. Primary Request and Intent:\n   Fix it."
    assert [e.name for e in r.events].count("summary_call") == 1


def firing(conversation_id: str) -> tuple[list[int], dict, int]:
    """(turns where the preset compacted, its first trigger.fired payload, the turn where Claude
    Code compacted) in a per-turn replay at a 200k window."""
    (conv,) = load_conversations(REAL / f"{conversation_id}.jsonl")
    turns, payloads = [], []
    for step in replay_steps(get_strategy("claude_code"), conv, WINDOW, get_counter("o200k_base"), "per-turn"):
        assert step.result is not None, step.error
        if step.result.messages != step.context:
            turns.append(step.turn)
            payloads += [e.payload for e in step.result.events if e.name == FIRED]
    (compaction,) = conv.meta["compactions"]
    return turns, payloads[0], compaction["at"]


@pytest.mark.parametrize("conversation_id", sorted(SESSIONS))
def test_it_compacts_at_the_call_where_claude_code_did(conversation_id: str) -> None:
    turns, fired, at = firing(conversation_id)
    assert turns[0] == at  # the documented threshold, no fitting: the same call, not one off
    assert fired["signal"] == "recorded usage" and fired["threshold"] == 167_000
    # What it measured is within 1% of what Claude Code logged (compactMetadata.preTokens).
    assert abs(fired["tokens"] - SESSIONS[conversation_id]) < 0.01 * SESSIONS[conversation_id]


def test_a_pipeline_hands_recorded_usage_on_while_no_step_changed_the_input() -> None:
    messages = session(1)
    recorded = [Recorded(4, 166_499, 7)]
    unchanged = get_strategy("pipeline", steps=("noop", "claude_code"))
    assert len(unchanged.compress(messages, WINDOW, counter="chars4", recorded=recorded).messages) == 2
    # A step that clears a tool result first: the log's prompts no longer describe the input.
    changed = get_strategy("pipeline", steps=("anthropic_context_editing:trigger_tokens=0,mask_keep=0", "claude_code"))
    r = changed.compress(messages, WINDOW, counter="chars4", recorded=recorded)
    assert len(r.messages) == 6 and not any(e.name == FIRED for e in r.events)


def test_the_explorer_rerun_hands_the_logs_recorded_usage() -> None:
    from ctxlab.analysis import explain
    from ctxlab.messages import Conversation

    calls = [{"index": 4, "model": "m", "prompt_tokens": 166_499, "output_tokens": 7}]
    conv = Conversation("c", session(1), meta={"provider_calls": calls})
    assert len(explain.rerun(conv, "claude_code", window=WINDOW, counter="chars4").messages) == 2
    assert len(explain.rerun(conv, "claude_code", window=WINDOW, counter="chars4", upto=4).messages) == 4
