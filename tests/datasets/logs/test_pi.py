"""pi sessions: the active branch of the entry tree, usage per assistant message, compaction at the
first kept entry, ``!`` commands as the model saw them, version 1 files, and what pi sends
(errored/aborted turns left out, orphan calls answered "No result provided")."""

from __future__ import annotations

import json

from ctxlab.datasets.logs.deltas import delta_spans
from ctxlab.datasets.logs.pi import bash_text
from tests.datasets.logs.helpers import CODE, FIXTURES, TEST, call_summary, load_one, shape
from tests.datasets.logs.pi_billed import pi_session, write_session
from tests.provider_logs import true_tokens

SESSION = FIXTURES / "pi" / "2025-10-29T12-00-00-000Z_7c2e9a40.jsonl"


def test_the_active_branch_becomes_the_conversation():
    conv = load_one(SESSION)
    assert conv.id == "7c2e9a40-5d1b-4f6e-8a3c-2b1d0e9f8a7b"
    assert shape(conv) == [
        ("user", "a0000003", None), ("assistant", "a0000004", ("toolu_p1", "toolu_p2")),
        ("tool", "a0000005", "toolu_p1"), ("tool", "a0000006", "toolu_p2"),
        ("assistant", "a0000007", ("toolu_p3",)), ("tool", "a0000008", "toolu_p3"),
        ("user", "a000000c", None), ("user", "a000000d", None), ("assistant", "a000000e", None),
    ]
    assert conv.meta["off_branch_entries"] == 2  # "Actually, undo that." and its reply
    assert not any("undo" in m.text for m in conv.messages)
    texts = [m.content for m in conv.messages]
    assert texts[1] == "Reading the code and the test."
    assert texts[2:4] == [CODE, TEST] and conv.messages[2].name == "read"
    assert texts[6] == "Ran `pytest -q`\n```\n1 passed in 0.01s\n```"
    assert texts[7] == "Is it fixed? Compare with this screenshot.\n[image omitted]"
    assert json.loads(conv.messages[4].tool_calls[0].arguments) == {
        "path": "calc.py", "oldText": "return round(a + b)", "newText": "return a + b"}


def test_usage_thinking_and_compaction():
    """pi summarised the messages before the first kept entry (index 4) when the session had reached
    message 6 (at): calls from 6 on saw the summary, the kept messages 4-5 verbatim."""
    conv = load_one(SESSION)
    assert call_summary(conv) == [(1, 2000, 900, 0, 1100, 70), (4, 2192, 12, 2000, 180, 95),
                                  (8, 990, 30, 900, 60, 15)]
    assert conv.meta["model"] == "claude-sonnet-4-5"
    assert conv.meta["thinking"] == [{"message_id": "a0000004", "text": "I'll read both files at once."}]
    assert conv.meta["compactions"] == [{"index": 4, "at": 6, "tokens_before": 2390, "summary":
                                         "Goal: fix test_add. add() rounded its result; the rounding was removed from calc.py."}]
    assert conv.meta["skipped"] == {"model_change": 1, "thinking_level_change": 1, "label": 1}
    assert (conv.meta["cwd"], conv.meta["version"]) == ("/work/calc", 3)


def test_version_1_files_are_read_in_order_with_an_index_compaction(tmp_path):
    entries = [json.loads(line) for line in SESSION.read_text().splitlines()]
    v1 = [entries[0] | {"version": 1}] + [{k: v for k, v in e.items() if k not in ("id", "parentId")}
                                          for e in entries[1:] if e["id"] not in ("a0000009", "a000000a")]
    compaction = next(e for e in v1 if e["type"] == "compaction")
    del compaction["firstKeptEntryId"]
    compaction["firstKeptEntryIndex"] = 7  # the header counts: entry 7 is the edit call
    path = tmp_path / "v1.jsonl"
    path.write_text("".join(json.dumps(e) + "\n" for e in v1))
    conv = load_one(path)
    assert [m.role for m in conv.messages] == [m.role for m in load_one(SESSION).messages]
    assert (conv.meta["compactions"][0]["index"], conv.meta["compactions"][0]["at"]) == (4, 6)
    assert "off_branch_entries" not in conv.meta


def test_an_aborted_assistant_message_is_dropped_and_recorded(tmp_path):
    entries = [json.loads(line) for line in SESSION.read_text().splitlines()]
    last = entries[-2]
    last["message"].update(content=[], stopReason="aborted", usage={"input": 0, "output": 0, "cacheRead": 0,
                                                                    "cacheWrite": 0})
    path = tmp_path / "aborted.jsonl"
    path.write_text("".join(json.dumps(e) + "\n" for e in entries))
    conv = load_one(path)
    assert conv.messages[-1].id == "a000000d"
    assert conv.meta["repairs"] == ["dropped the aborted assistant message a000000e: pi never resends an errored "
                                    "or aborted turn (transform-messages.ts)"]
    assert [c["index"] for c in conv.meta["provider_calls"]] == [1, 4]


def test_bash_text_reports_exit_codes_cancellation_and_truncation():
    assert bash_text({"command": "make", "output": "", "exitCode": 2}) == \
        "Ran `make`\n(no output)\n\nCommand exited with code 2"
    assert bash_text({"command": "sleep 9", "output": "", "cancelled": True}).endswith("(command cancelled)")
    assert bash_text({"command": "cat big", "output": "x", "truncated": True, "fullOutputPath": "/tmp/o"}).endswith(
        "[Output truncated. Full output: /tmp/o]")


def test_errored_turns_are_not_resent_but_their_calls_count(tmp_path):
    """pi-ai's transformMessages skips assistant turns whose stopReason is error or aborted: the
    failed write is not imported, its call (a sent prompt) is, and every usable delta is exact."""
    entries = pi_session(3, rounds=30)
    failed = [e for e in entries if e.get("message", {}).get("stopReason") == "error"]
    conv = load_one(write_session(tmp_path / "s.jsonl", entries))
    assert failed and conv.meta["repairs"] == [
        f"dropped the error assistant message {e['id']}: pi never resends an errored or aborted turn "
        "(transform-messages.ts)" for e in failed]
    sent_calls = [c["id"] for e in entries if e.get("message", {}).get("stopReason") in ("toolUse", "stop")
                  for c in e["message"]["content"] if c["type"] == "toolCall"]
    assert [c.id for m in conv.messages for c in m.tool_calls] == sent_calls
    assert not any(c.id.startswith("failed_") for m in conv.messages for c in m.tool_calls)
    billed = [e for e in entries if e.get("message", {}).get("role") == "assistant"
              and any(e["message"]["usage"].values())]  # a stream that failed early reported no tokens
    assert len(conv.meta["provider_calls"]) == len(billed) < len(failed) + len(sent_calls)
    spans = delta_spans(conv)
    assert {s.skipped for s in spans} == {None, "empty span"}  # a failed call and its retry sent one prompt
    assert all(s.actual == sum(true_tokens(m) for m in conv.messages[s.start:s.end]) for s in spans if not s.skipped)


def test_a_call_left_without_result_gets_pis_synthetic_error_result(tmp_path):
    entries = [json.loads(line) for line in SESSION.read_text().splitlines()]
    result = next(e for e in entries if e.get("message", {}).get("toolCallId") == "toolu_p3")
    path = tmp_path / "no-result.jsonl"
    kept = [e for e in entries if e is not result]
    for e in kept:  # re-chain the tree around the removed result
        if e.get("parentId") == result["id"]:
            e["parentId"] = result["parentId"]
    path.write_text("".join(json.dumps(e) + "\n" for e in kept))
    conv = load_one(path)
    answer = next(m for m in conv.messages if m.tool_call_id == "toolu_p3")
    assert answer.content == "No result provided" and answer.id == "toolu_p3:no-result"
    assert conv.messages[conv.messages.index(answer) + 1].role == "user"  # added before the next message
    assert conv.meta["repairs"] == ["tool call 'toolu_p3' got no result; added pi's synthetic error result "
                                    "\"No result provided\" (pi sends one when the next message arrives)"]


def test_format_1_sessions_resend_a_failed_turns_text_without_its_calls(tmp_path):
    """Sessions of format 1 come from an older pi whose transform stripped calls without a result and
    resent the rest: measured on a real format-1 session (pi-mono's test fixture
    large-session.jsonl, 434 usable deltas), after every aborted or errored turn the provider's
    prompt grew by that turn's text and by nothing for its calls. Newer formats drop the turn."""
    header = {"type": "session", "id": "legacy", "timestamp": "2025-11-20T23:33:50.805Z", "cwd": "/w"}
    usage = {"input": 3, "output": 40, "cacheRead": 0, "cacheWrite": 900}

    def message(role, content, **extra):
        return {"type": "message", "timestamp": "2025-11-20T23:34:00.000Z",
                "message": {"role": role, "content": content, **extra}}

    entries = [header, message("user", [{"type": "text", "text": "Fix the colors."}]),
               message("assistant", [{"type": "text", "text": "Aha! The color is a number."},
                                     {"type": "toolCall", "id": "t1", "name": "read", "arguments": {"path": "a"}}],
                       stopReason="aborted", usage=usage, model="claude-sonnet-4-5"),
               message("assistant", [{"type": "toolCall", "id": "t2", "name": "bash", "arguments": {}}],
                       stopReason="error", usage=usage, model="claude-sonnet-4-5"),
               message("user", [{"type": "text", "text": "Go on."}]),
               message("assistant", [{"type": "text", "text": "Done."}], stopReason="stop", usage=usage,
                       model="claude-sonnet-4-5")]
    legacy = load_one(write_session(tmp_path / "v1.jsonl", entries))
    assert [(m.role, m.text, len(m.tool_calls)) for m in legacy.messages] == [
        ("user", "Fix the colors.", 0), ("assistant", "Aha! The color is a number.", 0),
        ("user", "Go on.", 0), ("assistant", "Done.", 0)]
    assert f"left out the 1 tool call(s) of the aborted assistant message {tmp_path / 'v1.jsonl'}:3:" \
        in legacy.meta["repairs"][0]  # no entry ids in format 1: the line names it
    assert len(legacy.meta["provider_calls"]) == 3  # every failed call still sent a prompt
    current = load_one(write_session(tmp_path / "v3.jsonl", [header | {"version": 3}, *entries[1:]]))
    assert [m.text for m in current.messages] == ["Fix the colors.", "Go on.", "Done."]



def test_a_skipped_line_keeps_the_active_branch(tmp_path):
    """The conversation is the path from the last entry back to the root: a line skipped on it would
    cut the path (pi's own reader would then lose everything before it). The entries that hung off it
    hang off its own parent when the line shows it, else off the entry before it; the same branch is
    kept, without the skipped entry (here the ``!`` command, a000000c)."""
    lines = SESSION.read_text().splitlines()
    clean = shape(load_one(SESSION))
    for n, text, how in ((12, lines[12].replace('"role": "bashExecution"', '"role": "bashExecution", "content": {}'),
                          "its own parent, a000000b"),
                         (12, lines[12][:90], "the entry before it on its branch, a000000b")):
        path = tmp_path / f"{len(how)}.jsonl"
        path.write_text("\n".join(lines[:n] + [text] + lines[n + 1:]) + "\n")
        conv = load_one(path)
        assert shape(conv) == [s for s in clean if s[1] != "a000000c"]
        assert conv.meta["off_branch_entries"] == 2 and conv.meta["bad_lines"][0]["where"] == f"{path}:13"
        assert any(r.endswith(f"re-attached what hung off it (line 14) to {how}") for r in conv.meta["repairs"])


def test_a_line_that_does_not_decode_after_a_branch_point_can_pick_the_abandoned_branch(tmp_path):
    """The known limit of the rule: the compaction entry a000000b hangs off a0000008, not off the line
    before it (a000000a, the end of an abandoned branch). When its line shows its parent (a field of
    the wrong type) what hung off it follows the right branch; when the line does not decode, the
    nearest entry before it is a000000a, and the abandoned branch becomes the path (said in repairs)."""
    lines = SESSION.read_text().splitlines()
    wrong = tmp_path / "wrong.jsonl"
    wrong.write_text("\n".join(lines[:11] + [lines[11].replace('"id": "a000000b"', '"id": 7')] + lines[12:]) + "\n")
    garbage = tmp_path / "garbage.jsonl"
    garbage.write_text("\n".join(lines[:11] + ["\x00 not json"] + lines[12:]) + "\n")
    right, wrong_branch = load_one(wrong), load_one(garbage)
    assert not any("undo" in m.text for m in right.messages)
    assert any("the entry before it on its branch" not in r and "its own parent, a0000008" in r
               for r in right.meta["repairs"])
    assert any("undo" in m.text for m in wrong_branch.messages)
    assert any("the entry before it on its branch, a000000a" in r for r in wrong_branch.meta["repairs"])
