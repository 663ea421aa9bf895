"""Which pairs of provider calls are usable deltas, and the thinking their later prompt carries."""

from __future__ import annotations

import ast
from dataclasses import replace
from pathlib import Path

import pytest

from ctxlab.datasets.logs.deltas import (
    NON_POSITIVE,
    THINKING_DROPPED,
    THINKING_LOOP,
    THINKING_UNKNOWN,
    delta_spans,
    keeps_thinking,
    reason_counts,
    usable_spans,
)
from ctxlab.errors import CtxlabError
from ctxlab.messages import Conversation
from tests.provider_logs import MODEL, billed_log, calls_for, true_tokens

PACKAGE = Path(__file__).parents[3] / "ctxlab"


@pytest.mark.parametrize(("model", "keeps"), [
    ("claude-opus-4-6", True), ("claude-opus-4-5-20251101", True), ("anthropic/claude-opus-4.5", True),
    ("claude-fable-5-1", True), ("claude-sonnet-5", True), ("claude-opus-4-1-20250805", False),
    ("claude-opus-4-20250514", False), ("claude-sonnet-4-5-20250929", False), ("claude-3-7-sonnet-20250219", False),
    ("gpt-5-codex", False), ("unknown", False)])
def test_which_models_keep_earlier_thinking_in_the_prompt(model, keeps):
    assert keeps_thinking(model) is keeps


def with_thinking(model: str, thinking: list[dict]) -> Conversation:
    log = billed_log(8)
    return Conversation(log.id, log.messages, meta={"provider_calls": calls_for(log.messages, model=model),
                                                    "thinking": thinking})


def test_thinking_is_counted_in_the_span_for_models_that_keep_it():
    log = billed_log(8)
    first = delta_spans(log)[0]
    note = {"message_id": log.messages[first.start].id, "text": "Let me read the file first."}
    kept = delta_spans(with_thinking("claude-opus-4-6", [note]))
    assert kept[0].skipped is None and kept[0].thinking == ("Let me read the file first.",)
    assert all(s.thinking == () for s in kept[1:])
    redacted = delta_spans(with_thinking("claude-opus-4-6", [{**note, "text": "", "redacted": True}]))
    assert redacted[0].skipped == THINKING_UNKNOWN


def test_other_models_carry_the_thinking_of_the_turn_in_progress():
    """Anthropic sends the thinking of the turn in progress back inside a tool-use loop and drops it
    when a new user turn starts; for other APIs a pair whose turn has thinking is set aside. In the fixture, message 1 calls a tool, 2 is its result, 3 the final
    answer and 4 the next user turn: spans 1:3 and 3:5."""
    log = billed_log(8)
    loop, turn = delta_spans(log)[:2]
    assert (loop.start, loop.end, turn.start, turn.end) == (1, 3, 3, 5) and log.messages[4].role == "user"
    note = {"message_id": log.messages[1].id, "text": "Let me read the file first."}
    spans = delta_spans(with_thinking("claude-sonnet-4-5", [note]))
    assert spans[0].skipped is None and spans[0].thinking == ("Let me read the file first.",)
    assert spans[1].skipped == THINKING_DROPPED  # call 3's prompt carried it, call 5's does not
    answer = delta_spans(with_thinking("claude-sonnet-4-5", [{**note, "message_id": log.messages[3].id}]))
    assert answer[1].skipped is None and answer[1].thinking == ()  # only the answer thought: stripped with its turn
    redacted = delta_spans(with_thinking("claude-sonnet-4-5", [{**note, "redacted": True}]))
    assert redacted[0].skipped == THINKING_UNKNOWN
    other = delta_spans(with_thinking("gemini-2.5-pro", [note]))  # what other APIs resend is not known here
    assert other[0].skipped == THINKING_LOOP and other[1].skipped == THINKING_LOOP


def test_other_apis_count_thinking_whose_size_the_log_records():
    """Gemini resends a tool loop's thinking as thought signatures whose size the recorded summaries
    do not give; a log that records the call's thoughts token count (``call_thoughts_tokens``) sizes
    it. In the fixture, span 1:3 stays in the tool loop and span 3:5 starts a new user turn."""
    log = billed_log(8)
    note = {"message_id": log.messages[1].id, "text": "Reading\nLook at the file first.", "call_thoughts_tokens": 120}
    loop, turn = delta_spans(with_thinking("gemini-2.5-pro", [note, {**note, "text": "More", "call_thoughts_tokens": None}]))[:2]
    assert loop.skipped is None and loop.thinking_tokens == 120 and loop.thinking == ()  # the summaries were not sent
    assert turn.skipped == THINKING_LOOP  # whether a finished turn's signatures still count is not known
    redacted = delta_spans(with_thinking("gemini-2.5-pro", [{**note, "text": "", "redacted": True}]))
    assert redacted[0].skipped is None and redacted[0].thinking_tokens == 120
    too_big = delta_spans(with_thinking("gemini-2.5-pro", [{**note, "call_thoughts_tokens": loop.actual}]))
    assert too_big[0].skipped == f"{NON_POSITIVE} ({loop.actual} with {loop.actual} thinking tokens)"
    unsized = delta_spans(with_thinking("gemini-2.5-pro", [{**note, "call_thoughts_tokens": 0}]))
    assert unsized[0].skipped == THINKING_LOOP  # no size recorded: the conservative skip stays


def test_a_system_reminder_starts_no_turn_and_unsent_reasoning_is_ignored():
    log = billed_log(8)
    reminded = list(log.messages)
    reminded[4] = replace(reminded[4], content="<system-reminder>\nTodo list updated.\n</system-reminder>")
    note = {"message_id": log.messages[1].id, "text": "Let me read the file first."}
    meta = {"provider_calls": calls_for(log.messages, model="claude-sonnet-4-5"), "thinking": [note]}
    spans = delta_spans(Conversation(log.id, tuple(reminded), meta=meta))
    assert spans[1].skipped is None and spans[1].thinking == ()
    unsent = delta_spans(with_thinking("gpt-5-codex", [{**note, "resent": False}]))
    assert unsent[0].skipped is None and unsent[0].thinking == () and unsent[1].skipped is None


def test_reasons_are_counted_and_named_when_nothing_is_usable():
    log = billed_log(9)
    calls = [dict(c) for c in log.meta["provider_calls"]]
    calls[2]["model"] = "gpt-5"
    spans = delta_spans(Conversation(log.id, log.messages, meta={"provider_calls": calls}))
    assert reason_counts(spans) == {"different model": 2}
    assert all(s.actual == sum(true_tokens(m) for m in log.messages[s.start:s.end]) for s in spans if not s.skipped)
    with pytest.raises(CtxlabError, match=rf"{MODEL} \(\d+ usable of \d+ pairs\)"):
        usable_spans([log], "provider:gpt-4o")


def imports(path: Path) -> set[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    found = {node.module for node in ast.walk(tree) if isinstance(node, ast.ImportFrom) and node.module}
    return found | {a.name for node in ast.walk(tree) if isinstance(node, ast.Import) for a in node.names}


@pytest.mark.parametrize(("folder", "above"), [
    ("tokens", ("ctxlab.datasets", "ctxlab.metrics", "ctxlab.strategies", "ctxlab.summarize", "ctxlab.store")),
    ("datasets/logs", ("ctxlab.metrics", "ctxlab.strategies", "ctxlab.replay", "ctxlab.analysis", "ctxlab.cli")),
])
def test_no_import_points_up_from_the_delta_and_calibration_layers(folder, above):
    for path in (PACKAGE / folder).glob("*.py"):
        bad = sorted(m for m in imports(path) if m.startswith(above))
        assert not bad, f"{path.relative_to(PACKAGE)} imports {bad}"


def test_a_call_off_the_conversations_line_is_no_base_for_the_next_pair():
    """Seen in a real pi session: a second request sent while the first was running had a smaller
    prompt (not an extension of the first); the call after them continued the first, so measuring it
    against the second would be off by the difference."""
    log = billed_log(8)
    calls = calls_for(log.messages)
    calls[2] = {**calls[2], "prompt_tokens": calls[1]["prompt_tokens"] - 40}  # shrank: off the line
    spans = delta_spans(Conversation(log.id, log.messages, meta={"provider_calls": calls}))
    assert spans[1].skipped == "non-positive delta (-40)"
    assert spans[2].skipped == "after a prompt off the line (the pair before changed by -40)"
    assert spans[3].skipped is None  # back on the line from there


def test_overlapping_calls_are_not_a_delta():
    """A span whose last message is older than its first (the later request was sent before the
    earlier reply came back) cannot be what the later prompt added."""
    log = billed_log(8)
    first = delta_spans(log)[0]
    times = {first.start: 100.0, first.end - 1: 50.0}
    overlapping = tuple(replace(m, timestamp=times.get(i)) for i, m in enumerate(log.messages))
    spans = delta_spans(Conversation(log.id, overlapping, meta=log.meta))
    assert spans[0].skipped == "overlapping calls (the later reply is older than the earlier one)"
    in_order = tuple(replace(m, timestamp=float(i)) for i, m in enumerate(log.messages))
    assert delta_spans(Conversation(log.id, in_order, meta=log.meta))[0].skipped is None
