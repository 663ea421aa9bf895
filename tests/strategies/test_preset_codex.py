"""`codex` against Codex's documented behaviour (codex-rs/core/src/compact.rs @ 0100b103 and its
tests; utils/string/src/truncate.rs and truncate/tests.rs @ b24d7f3c): the 20k user-message cap
and the truncation of the message that overflows it, summary messages not carried, everything
else dropped, the hand-off summary last with Codex's prefix, and the 90% inclusive trigger."""

from __future__ import annotations

from ctxlab.messages import Message, ToolCall
from ctxlab.strategies import get_strategy
from ctxlab.strategies.mechanics.handoff import truncate_tokens, user_messages
from ctxlab.summarize import agent_prompts as ap
from ctxlab.tokens import get_counter

PREFIX = ap.CODEX_SUMMARY_PREFIX + "\n"


def test_truncation_matches_codex_tests() -> None:
    """truncate/tests.rs: the exact outputs Codex's own tests expect."""
    assert truncate_tokens("short output", 100) == "short output"
    assert truncate_tokens("abcdef", 0) == "…2 tokens truncated…"
    assert truncate_tokens("😀😀😀😀😀😀😀😀😀😀\nsecond line with text\n", 8) == "😀😀😀😀…8 tokens truncated… line with text\n"


def test_an_overlong_user_message_is_truncated_to_the_cap() -> None:
    """compact.rs build_token_limited_compacted_history_truncates_overlong_user_messages
    (max_tokens 16, "word " x 200), on the mechanic itself (no pinned message)."""
    big = "word " * 200
    messages = (Message("user", big, id="u1"),)
    counts = [get_counter("codex_bytes4").count_message(messages[0])]
    assert counts == [250]  # 1000 bytes
    kept, replaced = user_messages(messages, 0, counts, 16, None)
    assert kept == [0]
    text = replaced[0].text
    assert "tokens truncated" in text and big not in text and len(text.encode()) < 16 * 4 + 30


def test_user_messages_up_to_20k_tokens_newest_first_the_overflowing_one_truncated() -> None:
    task = Message("user", "t" * 40_000, id="u1")  # 10,000 bytes/4 tokens
    spec = Message("user", "s" * 48_000, id="u2")  # 12,000
    latest = Message("user", "l" * 24_000, id="u3")  # 6,000
    call = ToolCall("c1", "shell", '{"command": "pytest"}')
    session = (Message("system", "You are Codex.", id="sys"), task, Message("assistant", "On it.", id="a1"),
               spec, Message("assistant", None, id="a2", tool_calls=(call,)),
               Message("tool", "2 failed", id="t1", tool_call_id="c1"), latest)
    r = get_strategy("codex").compress(session, 30_000, counter="chars4")  # 28k tokens: over 27k
    assert [m.id for m in r.messages] == ["sys", "u1", "u2", "u3", "summary@t1"]
    assert r.messages[2] == spec and r.messages[3] == latest  # 6k + 12k fit in 20k
    head = r.messages[1]
    assert head.mark == "truncated" and head.text == truncate_tokens(task.text, 2_000)  # 20k - 18k remain
    assert head.text.startswith("t" * 4000) and "…8000 tokens truncated…" in head.text  # (40,000 - 8,000) bytes / 4
    assert set(r.dropped_ids) == {"a1", "a2", "t1"}


def test_the_handoff_summary_is_last_with_codexs_prefix_and_earlier_summaries_are_not_carried() -> None:
    old = Message("user", PREFIX + "## Goal / user objective\n- Port the YAML loader", id="old", mark="summary")
    session = (Message("system", "You are Codex.", id="sys"), old, Message("user", "Now add tests for loader.py.", id="u1"),
               Message("assistant", "x" * 3000, id="a1"), Message("user", "Also docs.", id="u2"))
    r = get_strategy("codex").compress(session, 300, counter="o200k_base")
    assert [m.id for m in r.messages][:3] == ["sys", "u1", "u2"] and len(r.messages) == 4
    note = r.messages[-1]
    assert (note.role, note.mark) == ("user", "summary") and note.text.startswith(PREFIX)
    assert note.text == ap.CODEX_SUMMARY_WRAPPER.format(summary=r.summary)
    assert "Port the YAML loader" in r.summary  # the earlier summary is summarized again, not carried
    assert "old" in note.source_ids


def test_the_newest_user_message_is_pinned_whole_even_over_the_cap() -> None:
    session = (Message("user", "older request", id="u1"), Message("assistant", "ok", id="a1"),
               Message("user", "n" * 100_000, id="u2"))
    r = get_strategy("codex").compress(session, 10, counter="chars4")
    assert [m.id for m in r.messages if m.mark is None] == ["u2"]  # 25k alone: nothing else is carried


def test_compacts_at_90_percent_of_the_window_inclusive() -> None:
    session = (Message("user", "Investigate the flaky test " * 30, id="u1"), Message("assistant", "x" * 2000, id="a1"),
               Message("user", "Go on.", id="u2"))
    total = get_counter("chars4").count_messages(session)
    at = next(b for b in range(total, 2 * total) if int(b * 0.9) == total)
    below = next(b for b in range(at, 2 * total) if int(b * 0.9) == total + 1)
    assert get_strategy("codex").compress(session, at, counter="chars4").messages != session
    assert get_strategy("codex").compress(session, below, counter="chars4").messages == session
