"""Claude Code session logs: split responses merged, usage once per call, sidechains and thinking kept
out, compaction recorded with the full history kept."""

from __future__ import annotations

import json

from ctxlab.datasets import load_conversations
from tests.datasets.logs.helpers import CODE, FIXTURES, TEST, call_summary, load_one, shape

SESSION = FIXTURES / "claude_code" / "session.jsonl"
SESSION_ID = "5b1f0c7e-2d4a-4e8b-9c3f-1a2b3c4d5e6f"


def test_messages_follow_the_session_with_split_responses_merged():
    conv = load_one(SESSION)
    assert conv.id == SESSION_ID
    assert shape(conv) == [
        ("user", "u-1", None),
        ("assistant", "msg_01", ("toolu_01", "toolu_02")),  # four entries, one interleaved result
        ("tool", "toolu_01", "toolu_01"),
        ("tool", "toolu_02", "toolu_02"),
        ("assistant", "msg_02", ("toolu_03",)),
        ("tool", "toolu_03", "toolu_03"),
        ("user", "u-6", None),
        ("assistant", "msg_03", ("toolu_04",)),
        ("tool", "toolu_04", "toolu_04"),
        ("assistant", "msg_04", None),
    ]
    texts = [m.content for m in conv.messages]
    assert texts[1] == "Let me read the code and the test."
    assert texts[2:4] == [CODE, TEST]
    assert texts[6] == "Now run the tests. This is what I saw before:\n[image omitted]"
    assert texts[9] == "All tests pass now."
    first_call = conv.messages[1].tool_calls[0]
    assert (first_call.name, json.loads(first_call.arguments)) == ("Read", {"file_path": "/work/calc/calc.py"})


def test_usage_counts_once_per_response_with_anthropic_prompt_tokens():
    conv = load_one(SESSION)
    # prompt = input + cache reads + cache writes; the four entries of msg_01 repeat one usage
    assert call_summary(conv) == [(1, 1500, 1200, 0, 300, 80), (4, 1740, 40, 1500, 200, 120),
                                  (7, 815, 15, 0, 800, 30), (9, 860, 5, 815, 40, 12)]
    assert {c["model"] for c in conv.meta["provider_calls"]} == {"claude-sonnet-4-5-20250929"}
    assert conv.meta["model"] == "claude-sonnet-4-5-20250929"


def test_thinking_is_metadata_never_content():
    conv = load_one(SESSION)
    thought = "The failure is probably in add(); read the code and the test together."
    assert conv.meta["thinking"] == [{"message_id": "msg_01", "text": thought}]
    assert all(thought not in m.text for m in conv.messages)


def test_compaction_keeps_the_full_history_and_leaves_the_summary_out_of_messages():
    conv = load_one(SESSION)
    [compaction] = conv.meta["compactions"]
    assert compaction["index"] == compaction["at"] == 6 and conv.messages[6].id == "u-6"
    assert compaction["tokens_before"] == 2310 and compaction["trigger"] == "manual"
    assert compaction["summary"].endswith("the rounding was removed from calc.py.")
    assert not any("continued from a previous conversation" in m.text for m in conv.messages)


def test_sidechains_titles_and_bookkeeping_are_reported():
    meta = load_one(SESSION).meta
    assert meta["format"] == "claude_code" and meta["source"] == str(SESSION)
    assert meta["sidechain_entries_left_out"] == 2
    assert meta["title"] == "Fix the add() rounding bug"
    assert meta["skipped"] == {"file-history-snapshot": 1, "system:turn_duration": 1}
    assert meta["omitted"] == {"image": 1}
    assert (meta["cwd"], meta["version"]) == ("/work/calc", "1.0.80")
    assert "repairs" not in meta


def test_a_subagent_file_is_its_own_conversation(tmp_path):
    lines = [json.loads(line) for line in SESSION.read_text().splitlines()]
    side = [line for line in lines if line.get("isSidechain")]
    path = tmp_path / "agent-9e8d7c6b.jsonl"
    path.write_text("".join(json.dumps(line) + "\n" for line in side))
    conv = load_one(path)
    assert conv.id == f"{SESSION_ID}:9e8d7c6b" and conv.meta["subagent"] is True
    assert [(m.role, m.text) for m in conv.messages] == [
        ("user", "Check that no other function rounds."), ("assistant", "No other function rounds.")]
    assert call_summary(conv) == [(1, 300, 300, 0, 0, 9)]


def test_a_session_killed_mid_tool_gets_a_marked_result(tmp_path):
    lines = SESSION.read_text().splitlines()
    cut = next(i for i, line in enumerate(lines) if '"toolu_04", "type": "tool_result"' in line)
    path = tmp_path / "killed.jsonl"
    path.write_text("\n".join(lines[:cut]) + "\n")
    conv = load_one(path)
    assert shape(conv)[-2:] == [("assistant", "msg_03", ("toolu_04",)), ("tool", "toolu_04:no-result", "toolu_04")]
    assert conv.messages[-1].content == "[no result recorded]"
    assert conv.meta["repairs"] == ["tool call 'toolu_04' has no result in the log; added [no result recorded]"]


def test_forced_format_reads_a_projects_folder(tmp_path):
    (tmp_path / "sessions-index.json").write_text('{"version": 1, "entries": []}')
    (tmp_path / "a.jsonl").write_text(SESSION.read_text())
    assert [c.id for c in load_conversations(f"claude_code:{tmp_path}")] == [SESSION_ID]
