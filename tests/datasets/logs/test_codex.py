"""Codex CLI rollouts: items of one response merged, OpenAI usage semantics, reasoning as metadata,
compaction, the old rollout shape."""

from __future__ import annotations

import json

from ctxlab.datasets.logs.deltas import THINKING_LOOP, delta_spans
from tests.datasets.logs.helpers import CODE, FIXTURES, TEST, call_summary, load_one, shape

ROLLOUT = FIXTURES / "codex" / "rollout-2025-10-29T11-00-00-0199aaaa-1111-7000-8000-000000000001.jsonl"
OLD = FIXTURES / "codex" / "rollout-2025-05-02T09-00-00-old.jsonl"


def test_messages_with_system_prompt_parallel_calls_and_tool_kinds():
    conv = load_one(ROLLOUT)
    assert conv.id == "0199aaaa-1111-7000-8000-000000000001"
    assert shape(conv) == [
        ("system", "system", None), ("system", "m1", None), ("user", "m2", None), ("user", "m3", None),
        ("assistant", "m4", ("call_A", "call_B")), ("tool", "call_A", "call_A"), ("tool", "call_B", "call_B"),
        ("assistant", "m7", ("call_C",)), ("tool", "call_C", "call_C"),
        ("assistant", "m9", None), ("user", "m10", None),
        ("assistant", "m11", ("call_D",)), ("tool", "call_D", "call_D"), ("assistant", "m13", None),
    ]
    texts = [m.content for m in conv.messages]
    assert texts[0] == "You are Codex, a coding agent. Keep answers short."  # base_instructions
    assert texts[1].startswith("<permissions instructions>")  # developer role -> system
    assert texts[5:7] == [CODE, TEST]  # a string output and an input_text content list
    calls = [c for m in conv.messages for c in m.tool_calls]
    assert [c.name for c in calls] == ["shell", "shell", "apply_patch", "local_shell"]
    assert calls[2].arguments.startswith("*** Begin Patch")  # a custom tool's raw input, kept as written
    assert json.loads(calls[3].arguments)["command"] == ["pytest", "-q"]


def test_prompt_tokens_are_input_tokens_because_openai_input_includes_the_cache():
    conv = load_one(ROLLOUT)
    assert call_summary(conv) == [(4, 2400, 2400, 0, 0, 90), (7, 2600, 296, 2304, 0, 150),
                                  (9, 2800, 240, 2560, 0, 20), (11, 1200, 1200, 0, 0, 25),
                                  (13, 1260, 108, 1152, 0, 8)]
    assert conv.meta["model"] == "gpt-5-codex"
    # the repeated count after call_C's output is not a second call
    assert conv.meta["skipped"]["event_msg:token_count (no new response)"] == 1
    assert conv.meta["entries"] == len(ROLLOUT.read_text().splitlines())


def test_reasoning_summary_is_thinking_metadata_and_encrypted_is_flagged():
    conv = load_one(ROLLOUT)
    assert conv.meta["thinking"] == [{"message_id": "m4", "encrypted": True, "text":
                                      "**Reading the code**\n\nI should look at calc.py and the test side by side."}]
    assert conv.messages[4].content is None


def test_reasoning_without_encrypted_content_never_reached_a_later_prompt(tmp_path):
    """Codex resends reasoning items without their id, so only encrypted content (or raw reasoning
    text) carries reasoning back; a summary alone is display text (codex-rs protocol/src/models.rs).
    Such a pair is a clean delta; with encrypted reasoning in the loop it is set aside."""
    assert delta_spans(load_one(ROLLOUT))[0].skipped == THINKING_LOOP
    lines = [json.loads(line) for line in ROLLOUT.read_text().splitlines()]
    for line in lines:
        if line["payload"].get("type") == "reasoning":
            line["payload"]["encrypted_content"] = None
    path = tmp_path / "rollout-0.39.jsonl"
    path.write_text("".join(json.dumps(line) + "\n" for line in lines))
    conv = load_one(path)
    assert conv.meta["thinking"][0]["resent"] is False and "encrypted" not in conv.meta["thinking"][0]
    first = delta_spans(conv)[0]
    assert (first.start, first.end, first.actual, first.skipped, first.thinking) == (4, 7, 200, None, ())
    lines[6]["payload"]["content"] = [{"type": "reasoning_text", "text": "calc.py first"}]  # raw text is resent
    path.write_text("".join(json.dumps(line) + "\n" for line in lines))
    raw = load_one(path)
    assert "resent" not in raw.meta["thinking"][0] and delta_spans(raw)[0].skipped == THINKING_LOOP


def test_compaction_index_summary_and_tokens_before_from_the_last_call():
    """The replacement history keeps the first user message beside the summary: recorded as kept."""
    conv = load_one(ROLLOUT)
    assert conv.meta["compactions"] == [{
        "index": 10, "at": 10, "tokens_before": 2820,
        "summary": "The user asked to fix test_add. add() rounded its result; the rounding was removed with apply_patch.",
        "kept_messages": [{"role": "user", "content": "Fix the failing test in test_calc.py."}]}]
    assert conv.messages[10].content == "Run the tests."


def test_other_lines_are_counted_not_imported():
    meta = load_one(ROLLOUT).meta
    assert meta["skipped"] == {"event_msg:user_message": 1, "event_msg:token_count (no new response)": 1,
                               "event_msg:context_compacted": 1, "ghost_commit": 1}
    assert (meta["cwd"], meta["cli_version"], meta["originator"]) == ("/work/calc", "0.46.0", "codex_cli_rs")


def test_old_rollouts_with_a_bare_session_line_load():
    conv = load_one(OLD)
    assert conv.id == "0f4a5c1e-6b2d-4c3a-9e8f-7a6b5c4d3e2f"
    assert [(m.role, m.content) for m in conv.messages] == [
        ("system", "Prefer small diffs."), ("user", "List the files."), ("assistant", None),
        ("tool", "calc.py\ntest_calc.py\n"), ("assistant", "calc.py and test_calc.py.")]
    assert conv.meta["provider_calls"] == [] and conv.meta["skipped"] == {"state": 2}


def test_without_token_counts_each_output_ends_the_response(tmp_path):
    """Old rollouts have no counts: a call after an output is a new assistant message."""
    lines = OLD.read_text().splitlines()
    extra = [{"type": "function_call", "name": "shell", "arguments": "{\"command\":[\"pwd\"]}", "call_id": "call_2"},
             {"type": "function_call_output", "call_id": "call_2", "output": "/work/calc\n"}]
    path = tmp_path / "old.jsonl"
    path.write_text("\n".join(lines[:5] + [json.dumps(e) for e in extra] + lines[5:]) + "\n")
    assert [s[2] for s in shape(load_one(path))][2:6] == [("call_1",), "call_1", ("call_2",), "call_2"]


def test_a_developer_message_between_a_call_and_its_output_does_not_orphan_the_output(tmp_path):
    """Codex sends items in logged order, so the model got call_A's real output after the
    developer message: the output is kept and the message moves after the results."""
    lines = ROLLOUT.read_text().splitlines()
    at = next(i for i, line in enumerate(lines) if '"call_id": "call_A", "output"' in line)
    note = {"timestamp": "2025-10-29T11:00:04.000Z", "type": "response_item", "payload": {
        "type": "message", "role": "developer", "content": [{"type": "input_text", "text": "Approved: cat calc.py"}]}}
    path = tmp_path / "developer.jsonl"
    path.write_text("\n".join([*lines[:at], json.dumps(note), *lines[at:]]) + "\n")
    conv = load_one(path)
    assert [m.content for m in conv.messages[5:8]] == [CODE, TEST, "Approved: cat calc.py"]
    assert not any(m.content == "[no result recorded]" for m in conv.messages)
    assert conv.meta["repairs"] == ["moved the system message 'Approved: cat calc.py' logged between tool calls and "
                                    "their results after the results (the model got them in log order)"]
    assert [c.id for m in conv.messages for c in m.tool_calls] == \
        [c.id for m in load_one(ROLLOUT).messages for c in m.tool_calls]
