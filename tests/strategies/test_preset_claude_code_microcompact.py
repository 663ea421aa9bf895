"""`claude_code_microcompact` against the third-party readings of Claude Code's time-based
micro-compaction: more than an hour since the newest assistant message clears every compactable
tool result but the newest 5 (at least one kept), the calls stay; without timestamps it never fires;
and on the real 2.1.39 logs, which show no such clearing, where it would have cleared anyway."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from ctxlab.datasets import load_conversations
from ctxlab.errors import CtxlabError
from ctxlab.messages import Message, ToolCall, validate_messages
from ctxlab.replay.steps import replay_steps
from ctxlab.strategies import get_strategy
from ctxlab.strategies.policy.model import UNTIMED
from ctxlab.tokens import get_counter

PLACEHOLDER = "[Old tool result content cleared]"
T0 = 1_770_000_000.0
REAL = Path(__file__).resolve().parents[2] / ".." / "shared" / "reallogs" / "claude_code"


def reads(n: int, gap_minutes: float, tool: str = "Read", timed: bool = True) -> tuple[Message, ...]:
    """A task, `n` reads r1..rn (the last answered at T0), then a user message `gap_minutes` later."""
    at = (lambda t: t) if timed else (lambda t: None)
    out = [Message("system", "You are Claude Code.", id="s"), Message("user", "Audit the repo.", id="u", timestamp=at(T0 - 900))]
    for i in range(1, n + 1):
        when = T0 - 60 * (n - i)
        out += [Message("assistant", f"Reading {i}.", id=f"a{i}", timestamp=at(when),
                        tool_calls=(ToolCall(f"c{i}", tool, json.dumps({"file_path": f"f{i}.py"})),)),
                Message("tool", f"contents of f{i}.py " * 200, id=f"r{i}", tool_call_id=f"c{i}", timestamp=at(when + 1))]
    return (*out, Message("user", "Go on.", id="q", timestamp=at(T0 + 60 * gap_minutes)))


def cleared(messages) -> list[str]:
    return [m.id for m in messages if m.role == "tool" and m.text == PLACEHOLDER]


def test_after_an_hour_idle_all_but_the_5_newest_results_are_cleared() -> None:
    messages = reads(7, gap_minutes=61)
    r = get_strategy("claude_code_microcompact").compress(messages, 200_000, counter="o200k_base")
    assert cleared(r.messages) == ["r1", "r2"]
    assert [m.tool_calls for m in r.messages] == [m.tool_calls for m in messages]  # the calls stay
    validate_messages(r.messages)


def test_within_the_hour_nothing_changes() -> None:
    messages = reads(7, gap_minutes=60)  # the gap must exceed the threshold
    assert get_strategy("claude_code_microcompact").compress(messages, 200_000, counter="o200k_base").messages == messages


def test_the_gap_is_from_the_newest_assistant_message_not_its_tool_results() -> None:
    messages = reads(7, gap_minutes=0)
    late = (*messages[:-1], Message("user", "Go on.", id="q", timestamp=T0 + 3601))  # 3601 s after a7
    assert cleared(get_strategy("claude_code_microcompact").compress(late, 200_000).messages) == ["r1", "r2"]


def test_clearing_twice_changes_nothing_more() -> None:
    s = get_strategy("claude_code_microcompact")
    once = s.compress(reads(7, 61), 200_000).messages
    assert s.compress(once, 200_000).messages == once


def test_at_least_the_newest_result_is_kept() -> None:
    with pytest.raises(CtxlabError, match="at least"):
        get_strategy("claude_code_microcompact", mask_keep=0)
    r = get_strategy("claude_code_microcompact", mask_keep=1).compress(reads(3, 61), 200_000)
    assert cleared(r.messages) == ["r1", "r2"]


def test_only_compactable_tools_are_cleared() -> None:
    messages = reads(7, 61, tool="TodoWrite")
    assert get_strategy("claude_code_microcompact").compress(messages, 200_000).messages == messages
    # With no include list every tool's results are candidates.
    assert cleared(get_strategy("claude_code_microcompact", mask_include=()).compress(messages, 200_000).messages) \
        == ["r1", "r2"]


def test_without_timestamps_it_never_fires_and_says_why() -> None:
    messages = reads(7, 61, timed=False)
    r = get_strategy("claude_code_microcompact").compress(messages, 200_000)
    assert r.messages == messages and [e.name for e in r.events] == [UNTIMED]


def test_the_real_logs_show_no_clearing_where_the_preset_would_clear() -> None:
    """Claude Code 2.1.39 left every tool result in place after a 251-minute gap (the call after it
    reported its prompt grown, not shrunk; the feature is remote and off by default); the preset,
    with the defaults third parties read in the code, clears at that call."""
    (conv,) = load_conversations(REAL / "4d5611e5-241a-462a-8d15-5122611a9569.jsonl")
    steps = [s for s in replay_steps(get_strategy("claude_code_microcompact"), conv, 200_000,
                                     get_counter("o200k_base"), "per-turn") if s.result.messages != s.context]
    assert [s.turn for s in steps] == [42]
    gap = conv.messages[41].timestamp - max(m.timestamp for m in conv.messages[:41] if m.role == "assistant")
    assert 250 * 60 < gap < 252 * 60
    calls = {c["index"]: c["prompt_tokens"] for c in conv.meta["provider_calls"]}
    before = max(i for i in calls if i < 42)
    assert calls[42] > calls[before]  # nothing was cleared in the real session
