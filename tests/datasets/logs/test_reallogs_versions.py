"""Older and odd files of the formats ctxlab already read, on the real logs in ../shared/reallogs (its
README's measured facts are the expectations): an early pi session with two entries on one line,
two Claude Code 1.0.95 sessions in one file with TodoWrite, a short 1.0.98 session."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import pytest

from ctxlab.datasets import load_conversations
from ctxlab.datasets.logs.deltas import delta_spans
from ctxlab.messages import Conversation
from ctxlab.metrics.provider import estimate_span
from ctxlab.tokens import get_counter
from tests.datasets.logs.test_reallogs import REAL

FIRST, RESUMED = "e9f146fa-3b20-48d0-9be4-d99ca901cae4", "b162b1ae-97bc-475f-9b5f-ffbf55ca5b3f"


@pytest.fixture(scope="module")
def pi() -> Conversation:
    assert REAL.is_dir(), f"the real agent logs are missing: expected {REAL}"
    [conv] = load_conversations(str(REAL / "pi" / "session.jsonl"))
    return conv


@pytest.fixture(scope="module")
def cc() -> dict[str, Conversation]:
    return {c.id: c for c in load_conversations(str(REAL / "claude_code" / "claude_code.jsonl"))}


def usable_share(conv: Conversation) -> float:
    spans = delta_spans(conv)
    return sum(s.skipped is None for s in spans) / len(spans)


def test_the_early_pi_session_loads_with_its_joined_line_split(pi):
    """464 entries on 463 lines: user 44 + one bashExecution, assistant 220 (six aborted with nothing
    in them, left out), toolResult 189; one compaction (tokensBefore 186045, firstKeptEntryIndex 355)."""
    path = REAL / "pi" / "session.jsonl"
    roles = Counter(m.role for m in pi.messages)
    assert roles == {"user": 45, "assistant": 214, "tool": 189}
    assert sum(len(m.tool_calls) for m in pi.messages) == 189 and len(pi.meta["provider_calls"]) == 214
    repairs = pi.meta["repairs"]
    assert repairs[0] == (f"{path}:440: 2 entries written back to back with no newline between them; split into "
                          "separate entries")
    assert sum(r.startswith("dropped an empty assistant message") for r in repairs) == 6
    [compaction] = pi.meta["compactions"]
    assert compaction["tokens_before"] == 186045 and compaction["summary"].startswith("# Context Checkpoint")
    assert pi.messages[compaction["index"]].text.startswith("Done. Changes to custom-tools.md")  # entry 355, line 356
    assert compaction["at"] == len(pi.messages)
    assert pi.meta["skipped"] == {"thinking_level_change": 8} and usable_share(pi) >= 0.9
    assert pi.meta["entries"] == 464


def test_two_claude_code_sessions_in_one_file_are_two_conversations(cc):
    """84 lines, sessionIds e9f146fa (48 lines) and b162b1ae (36): the second resumes the first
    (its first line repeats the first's last, toolu_01Lv3xFNGrJLeUh53hersj2H's result), so its
    conversation starts with the first's history; each call is counted once (31 message ids)."""
    first, resumed = cc[FIRST], cc[RESUMED]
    assert (first.meta["entries"], resumed.meta["entries"]) == (48, 36)
    assert len(first.meta["provider_calls"]) + len(resumed.meta["provider_calls"]) == 31
    assert resumed.meta["resumed_from"] == FIRST and resumed.meta["repairs"][0].startswith(
        f"{REAL / 'claude_code' / 'claude_code.jsonl'}:49: session {RESUMED} resumes session {FIRST}")
    history = [m.id for m in first.messages[:-2]]
    assert [m.id for m in resumed.messages[:len(history)]] == history
    for conv in (first, resumed):  # the call answered twice in the file is answered once in each
        answers = [m for m in conv.messages if m.tool_call_id == "toolu_01Lv3xFNGrJLeUh53hersj2H"]
        assert len(answers) == 1 and not any("dropped tool result" in r for r in conv.meta.get("repairs", []))
    assert resumed.messages[len(history)].tool_call_id == "toolu_01Lv3xFNGrJLeUh53hersj2H"  # the repeated line
    assert usable_share(first) >= 0.9


def test_todowrite_deltas_are_in_line_with_the_others(cc):
    """Billed 1,278 for a TodoWrite against 292 estimated from the logged call and result (-77%):
    the model also got the todo list again and counted the array parameter's non-ASCII characters
    escaped. With both, the TodoWrite deltas of the first session fall within 15% (claude_legacy,
    the nearest tokenizer to Claude's here), where the Edit and Bash deltas are 28-64% under (the
    78-token framing of a tool call and result, which no estimate here counts)."""
    legacy, first = get_counter("claude_legacy"), cc[FIRST]
    spans = [s for s in delta_spans(first) if s.skipped is None]
    todo = [s for s in spans if any(c.name == "TodoWrite" for m in first.messages[s.start:s.end] for c in m.tool_calls)]
    errors = [(estimate_span(legacy, first, s) - s.actual) / s.actual for s in todo]
    assert len(todo) == 8 and all(-0.15 < e < 0 for e in errors), errors
    reminders = [m for m in first.messages if m.id.startswith("todo@")]
    assert len(reminders) == 9 and reminders[-1].text.startswith("<system-reminder>\nThe todo list is empty")
    call = next(c for m in first.messages for c in m.tool_calls if c.name == "TodoWrite")
    assert '"todos":[{"content":"\\u6aa2\\u67e5go.mod' in call.arguments  # the same JSON value, escaped


def test_a_short_1_0_98_session():
    """29 lines, 7 message ids, 12 tool_use / 12 tool_result (TodoWrite 3, which 1.0.98 does not
    follow with the todo list: those deltas are the call, its result and the usual framing)."""
    [conv] = load_conversations(str(REAL / "claude_code" / "1af7fc5e-8455-4414-9ccd-011d40f70b2a.jsonl"))
    assert len(conv.meta["provider_calls"]) == 7 and conv.meta["entries"] == 29
    assert sum(len(m.tool_calls) for m in conv.messages) == 12 == sum(m.role == "tool" for m in conv.messages)
    assert not any(m.id.startswith("todo@") for m in conv.messages) and usable_share(conv) == 1.0


def test_2_1_sessions_link_their_subagents_to_the_task_calls():
    """Claude Code 2.x names the subagent on the Task's result (toolUseResult.agentId)."""
    convs = {c.id: c for c in load_conversations(str(REAL / "claude_code" / "fa812bfe-b295-4cca-9c2f-fdf01028cb46.jsonl"))}
    links = convs["fa812bfe-b295-4cca-9c2f-fdf01028cb46"].meta["subagents"]
    assert [link["conversation"] for link in links] == ["fa812bfe-b295-4cca-9c2f-fdf01028cb46:a93ccab",
                                                        "fa812bfe-b295-4cca-9c2f-fdf01028cb46:aa84377"]
    main = convs["fa812bfe-b295-4cca-9c2f-fdf01028cb46"]
    tasks = {c.id for m in main.messages for c in m.tool_calls if c.name == "Task"}
    assert {link["tool_call_id"] for link in links} <= tasks and Path(main.meta["source"]).name.startswith("fa812bfe")
