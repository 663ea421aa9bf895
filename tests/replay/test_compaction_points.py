"""Each recorded compaction beside the call where the agent's own preset compacts in a per-turn
replay of the log (`line_up`), on the real Claude Code and pi sessions and on built logs."""

from __future__ import annotations

from dataclasses import replace

from ctxlab.datasets import load_conversations
from ctxlab.replay.compaction_points import line_up, log_window
from ctxlab.replay.steps import replay_steps
from ctxlab.strategies import get_strategy
from ctxlab.tokens import get_counter
from tests.cost.conftest import REALLOGS
from tests.provider_logs import compacted_log

O200K = get_counter("o200k_base")


def test_claude_code_compacts_at_the_same_calls_as_the_real_sessions() -> None:
    rows = {r.conversation_id[:8]: r for c in load_conversations(REALLOGS / "claude_code") for r in line_up(c, O200K)}
    assert sorted(rows) == ["4d5611e5", "fa812bfe"]  # the sessions that recorded a compaction
    a, b = rows["4d5611e5"], rows["fa812bfe"]
    assert (a.agent_call, a.agent_at, a.agent_tokens, a.window) == (62, 135, 170_251, 200_000)
    assert (b.agent_call, b.agent_at, b.agent_tokens) == (128, 302, 167_117)
    for row in (a, b):
        assert row.preset == "claude_code" and row.calls_apart == 0 and row.signal == "recorded usage"
        assert abs(row.tokens_apart) < 200 and row.preset_tokens == row.agent_tokens + row.tokens_apart


def test_pi_never_reaches_its_threshold_on_the_messages_alone() -> None:
    """pi compacted after its last call at 186,045 tokens (as its provider counted, system prompt
    included); ctxlab's pi preset counts the messages with the replay's counter: 134,028 there, under
    200,000 - 16,384."""
    (conv,) = load_conversations(REALLOGS / "pi" / "session.jsonl")
    (row,) = line_up(conv, O200K)
    assert (row.preset, row.window, row.agent_at, row.agent_tokens) == ("pi", 200_000, len(conv.messages), 186_045)
    assert row.agent_call == 215  # the call after the last message: the session ended with the compaction
    assert row.preset_call is None and row.calls_apart is None
    assert row.context_tokens == O200K.count_messages(conv.messages) == 134_028


def test_the_kth_recorded_compaction_is_lined_up_with_the_presets_kth() -> None:
    log = compacted_log(7)
    conv = replace(log, meta={**log.meta, "format": "codex", "model": "gpt-5"})
    at = conv.meta["compactions"][0]["at"]
    size = O200K.count_messages(conv.messages[:at]) * 10 // 9  # codex compacts at 90% of the window
    (row,) = line_up(conv, O200K, window=size)
    steps = list(replay_steps(get_strategy("codex"), conv, size, O200K, "per-turn", after_last=True))
    first = next(n for n, s in enumerate(steps, 1) if s.result.messages != s.context)
    assert row.preset_call == first and row.agent_call == next(n for n, s in enumerate(steps, 1) if s.upto >= at)
    assert row.calls_apart == row.preset_call - row.agent_call and row.signal == "counter"
    assert log_window(conv) == 272_000  # the log's model's window, when none is given


def test_logs_without_an_agent_preset_or_a_known_window() -> None:
    log = compacted_log(8)
    openhands = replace(log, meta={**log.meta, "format": "openhands"})
    assert line_up(openhands, O200K) == []  # no preset follows that agent
    unknown = replace(log, meta={**log.meta, "format": "pi", "model": "no-such-model"})
    (row,) = line_up(unknown, O200K)
    assert "no-such-model" in row.error
