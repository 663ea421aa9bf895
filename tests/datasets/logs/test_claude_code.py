"""Claude Code session logs: split responses merged, usage once per call, sidechains and thinking kept
out, compaction recorded with the full history kept."""

from __future__ import annotations

import json

from ctxlab.datasets import load_conversations
from tests.datasets.logs.helpers import CODE, FIXTURES, TEST, call_summary, load_one, load_session, shape

SESSION = FIXTURES / "claude_code" / "session.jsonl"
SESSION_ID = "5b1f0c7e-2d4a-4e8b-9c3f-1a2b3c4d5e6f"


def test_messages_follow_the_session_with_split_responses_merged():
    conv = load_session(SESSION)
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
    conv = load_session(SESSION)
    # prompt = input + cache reads + cache writes; the four entries of msg_01 repeat one usage
    assert call_summary(conv) == [(1, 1500, 1200, 0, 300, 80), (4, 1740, 40, 1500, 200, 120),
                                  (7, 815, 15, 0, 800, 30), (9, 860, 5, 815, 40, 12)]
    assert {c["model"] for c in conv.meta["provider_calls"]} == {"claude-sonnet-4-5-20250929"}
    assert conv.meta["model"] == "claude-sonnet-4-5-20250929"


def test_thinking_is_metadata_never_content():
    conv = load_session(SESSION)
    thought = "The failure is probably in add(); read the code and the test together."
    assert conv.meta["thinking"] == [{"message_id": "msg_01", "text": thought}]
    assert all(thought not in m.text for m in conv.messages)


def test_compaction_keeps_the_full_history_and_leaves_the_summary_out_of_messages():
    conv = load_session(SESSION)
    [compaction] = conv.meta["compactions"]
    assert compaction["index"] == compaction["at"] == 6 and conv.messages[6].id == "u-6"
    assert compaction["tokens_before"] == 2310 and compaction["trigger"] == "manual"
    assert compaction["summary"].endswith("the rounding was removed from calc.py.")
    assert not any("continued from a previous conversation" in m.text for m in conv.messages)


def test_sidechains_titles_and_bookkeeping_are_reported():
    """The two sidechain lines are the subagent's own conversation, linked both ways; every line of
    the file is one conversation's."""
    session, subagent = load_conversations(str(SESSION))
    meta = session.meta
    assert meta["format"] == "claude_code" and meta["source"] == str(SESSION)
    assert meta["subagents"] == [{"conversation": f"{SESSION_ID}:9e8d7c6b", "tool_call_id": None}]
    assert subagent.meta["parent"] == {"conversation": SESSION_ID, "tool_call_id": None}
    assert meta["entries"] + subagent.meta["entries"] == len(SESSION.read_text().splitlines()) == 20
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


def test_a_subagent_whose_own_log_is_missing_is_noted_and_its_progress_copies_left_out(tmp_path):
    """Claude Code 2.x writes a subagent to ``<session>/subagents/agent-<id>.jsonl`` and copies its
    messages into the session as ``agent_progress`` lines for the UI (the session's model saw only
    the Task result). Without that file (shared/reallogs/claude_code/subagent.jsonl) the subagent's
    conversation cannot be imported: the session says so instead of linking to nothing silently."""
    lines = [json.loads(line) for line in SESSION.read_text().splitlines()]
    result = next(i for i, line in enumerate(lines) if '"toolu_04", "type": "tool_result"' in json.dumps(line))
    lines[result]["toolUseResult"] = {"agentId": "a1b2c3d", "status": "completed"}
    progress = {"type": "progress", "sessionId": SESSION_ID, "uuid": "p-1", "parentUuid": "a-6",
                "data": {"type": "agent_progress", "agentId": "a1b2c3d",
                         "message": {"type": "user", "message": {"role": "user", "content": "Look for rounding."}}}}
    lines = [line for line in [*lines[:result], progress, *lines[result:]] if not line.get("isSidechain")]
    path = tmp_path / f"{SESSION_ID}.jsonl"
    path.write_text("".join(json.dumps(line) + "\n" for line in lines))
    meta = load_session(path).meta
    assert meta["subagents"] == [{"conversation": f"{SESSION_ID}:a1b2c3d", "tool_call_id": "toolu_04"}]
    assert meta["notes"] == [f"subagent a1b2c3d's own log ({SESSION_ID}/subagents/agent-a1b2c3d.jsonl) is not beside "
                             "this file: its conversation is not imported; the 1 agent_progress lines that copy its "
                             "messages here for the UI are left out"]
    assert meta["skipped"]["progress"] == 1
    folder = tmp_path / SESSION_ID / "subagents"
    folder.mkdir(parents=True)
    (folder / "agent-a1b2c3d.jsonl").write_text("")
    assert "notes" not in load_session(path).meta


def test_a_session_killed_mid_tool_gets_a_marked_result(tmp_path):
    lines = SESSION.read_text().splitlines()
    cut = next(i for i, line in enumerate(lines) if '"toolu_04", "type": "tool_result"' in line)
    path = tmp_path / "killed.jsonl"
    path.write_text("\n".join(lines[:cut]) + "\n")
    conv = load_session(path)
    assert shape(conv)[-2:] == [("assistant", "msg_03", ("toolu_04",)), ("tool", "toolu_04:no-result", "toolu_04")]
    assert conv.messages[-1].content == "[no result recorded]"
    assert conv.meta["repairs"] == ["tool call 'toolu_04' has no result in the log; added [no result recorded]"]


def test_forced_format_reads_a_projects_folder(tmp_path):
    (tmp_path / "sessions-index.json").write_text('{"version": 1, "entries": []}')
    (tmp_path / "a.jsonl").write_text(SESSION.read_text())
    assert [c.id for c in load_conversations(f"claude_code:{tmp_path}")] == [SESSION_ID, f"{SESSION_ID}:9e8d7c6b"]


def with_lines(tmp_path, extra: dict[int, list[dict]], name: str = "s.jsonl", drop: tuple[int, ...] = ()):
    """The fixture with `extra` entries inserted after the given line numbers (0-based)."""
    out = []
    for i, line in enumerate(SESSION.read_text().splitlines()):
        if i not in drop:
            out.append(line)
        out += [json.dumps(e) for e in extra.get(i, ())]
    path = tmp_path / name
    path.write_text("\n".join(out) + "\n")
    return path


def queue(operation: str, content: str | None = "also check the docs") -> dict:
    entry = {"type": "queue-operation", "operation": operation, "timestamp": "2025-10-29T10:00:09.000Z",
             "sessionId": SESSION_ID}
    return entry if content is None else {**entry, "content": content}


def test_a_queued_message_absorbed_mid_turn_reaches_the_conversation(tmp_path):
    """`remove` = absorbed into the turn in progress (sent with the next request, no user entry)."""
    path = with_lines(tmp_path, {10: [queue("enqueue"), queue("remove")]})
    conv = load_session(path)
    added = next(i for i, m in enumerate(conv.messages) if m.text == "also check the docs")
    assert conv.messages[added].role == "user" and conv.messages[added - 1].tool_call_id == "toolu_03"
    assert conv.meta["repairs"] == [f"{path}:13: a queued user message reached the model mid-turn (queue-operation "
                                    "remove) but has no user entry; added it as a user message"]
    assert conv.meta["skipped"]["queue-operation:enqueue"] == 1


def test_queued_messages_that_became_user_entries_or_were_taken_back_are_not_doubled(tmp_path):
    attachment = {"type": "attachment", "uuid": "q-1", "parentUuid": "u-4", "sessionId": SESSION_ID,
                  "attachment": {"type": "queued_command", "prompt": "also check the docs"}}
    absorbed = load_session(with_lines(tmp_path, {10: [queue("enqueue"), queue("remove"), attachment]}))
    assert [m.id for m in absorbed.messages if m.text == "also check the docs"] == ["q-1"]
    assert not any("queue-operation" in r for r in absorbed.meta.get("repairs", []))
    later = load_session(with_lines(tmp_path, {10: [queue("enqueue"), queue("dequeue", None), queue("popAll")]}, "b.jsonl"))
    assert not any(m.text == "also check the docs" for m in later.messages)
    assert later.meta["skipped"]["queue-operation:dequeue"] == 1 and "repairs" not in later.meta


def test_queued_messages_removed_without_text_are_the_oldest_enqueued(tmp_path):
    """Since Claude Code 2.0.76 only ``enqueue`` (and ``popAll``) carry the text: a ``remove`` takes
    the oldest message still queued (claude-code-viewer's QueueOperationEntrySchema lists the
    fields). Two messages typed while the model worked both reach the conversation, in order."""
    typed = [queue("enqueue", "also check the docs"), queue("enqueue", "and the changelog")]
    path = with_lines(tmp_path, {10: [*typed, queue("remove", None), queue("remove", None)]})
    conv = load_session(path)
    added = [i for i, m in enumerate(conv.messages) if m.text in ("also check the docs", "and the changelog")]
    assert [conv.messages[i].text for i in added] == ["also check the docs", "and the changelog"]
    assert conv.messages[added[0] - 1].tool_call_id == "toolu_03" and added[1] == added[0] + 1
    assert [r.split(": ", 1)[0] for r in conv.meta["repairs"]] == [f"{path}:14", f"{path}:15"]  # the removes
    assert conv.meta["skipped"]["queue-operation:enqueue"] == 2
    taken_back = load_session(with_lines(tmp_path, {10: [typed[0], queue("popAll", None), queue("remove", None)]},
                                         "c.jsonl"))
    assert "repairs" not in taken_back.meta and taken_back.meta["skipped"]["queue-operation:remove"] == 1
    entry = {"type": "user", "uuid": "q-2", "parentUuid": "u-4", "sessionId": SESSION_ID,
             "message": {"role": "user", "content": "also check the docs"}}
    own_entry = load_session(with_lines(tmp_path, {10: [typed[0], queue("remove", None), entry]}, "d.jsonl"))
    assert [m.id for m in own_entry.messages if m.text == "also check the docs"] == ["q-2"]  # not doubled


def test_hook_output_and_blank_blocks(tmp_path):
    """isMeta hook output (a system reminder) is context the model saw; a whitespace-only text
    block is not content (the API refuses one, so Claude Code never resends it)."""
    hook = {"type": "user", "isMeta": True, "uuid": "h-1", "parentUuid": "u-4", "sessionId": SESSION_ID,
            "message": {"role": "user", "content": "<system-reminder>\nPostToolUse:Edit hook: formatted\n</system-reminder>"}}
    blank = {"type": "assistant", "uuid": "a-1b", "parentUuid": "a-1", "sessionId": SESSION_ID,
             "message": {"id": "msg_01", "role": "assistant", "model": "claude-sonnet-4-5-20250929",
                         "content": [{"type": "text", "text": "\n\n"}]}}
    conv = load_session(with_lines(tmp_path, {10: [hook], 3: [blank]}))
    assert ("user", "<system-reminder>\nPostToolUse:Edit hook: formatted\n</system-reminder>") in \
        [(m.role, m.text) for m in conv.messages]
    assert conv.messages[1].content == "Let me read the code and the test."
    assert conv.meta["repairs"] == ["dropped 1 whitespace-only text block(s): not content (the API refuses them, "
                                    "so Claude Code never resends them)"]


def test_the_last_record_of_a_message_id_carries_the_calls_output_tokens(tmp_path):
    lines = [json.loads(line) for line in SESSION.read_text().splitlines()]
    for line, tokens in zip(lines[3:8], (1, 1, 2, None, 80), strict=True):
        if tokens is not None:
            line["message"]["usage"]["output_tokens"] = tokens  # streaming partials, then the final count
    path = tmp_path / "partials.jsonl"
    path.write_text("".join(json.dumps(line) + "\n" for line in lines))
    assert call_summary(load_session(path))[0] == (1, 1500, 1200, 0, 300, 80)


def compaction_agent(folder, parent: str, summary: str = "Summary: add() no longer rounds.", **hook: str) -> None:
    """A compaction agent's log beside the session: a hook the main log lacks, then prompt and reply."""
    sub = folder / SESSION_ID / "subagents"
    sub.mkdir(parents=True)
    side = {"isSidechain": True, "sessionId": SESSION_ID, "agentId": "acompact-1"}
    entries = [{**side, **hook, "type": "user", "isMeta": True, "uuid": "h-9", "parentUuid": parent,
                "message": {"role": "user", "content": "<system-reminder>\nPostToolUse:Edit hook: 1 warning\n"
                                                       "</system-reminder>"}},
               {**side, "type": "user", "uuid": "p-1", "parentUuid": "h-9",
                "message": {"role": "user", "content": "Your task is to create a detailed summary..."}},
               {**side, "type": "assistant", "uuid": "r-1", "parentUuid": "p-1",
                "message": {"id": "msg_c", "role": "assistant", "model": "claude-sonnet-4-5-20250929",
                            "content": [{"type": "text", "text": summary}],
                            "usage": {"input_tokens": 3, "cache_read_input_tokens": 2000,
                                      "cache_creation_input_tokens": 300, "output_tokens": 40}}}]
    (sub / "agent-acompact-1.jsonl").write_text("".join(json.dumps(e) + "\n" for e in entries))


def test_the_compaction_agents_log_is_part_of_its_session(tmp_path):
    (tmp_path / f"{SESSION_ID}.jsonl").write_text(SESSION.read_text())
    compaction_agent(tmp_path, "u-4")
    conv, _ = load_conversations(str(tmp_path))  # the agent's log is not a conversation of its own
    assert _.meta["subagent"] and not conv.meta.get("subagent")
    hook = next(i for i, m in enumerate(conv.messages) if "1 warning" in m.text)
    assert conv.messages[hook - 1].tool_call_id == "toolu_03" and conv.messages[hook].id == "h-9"
    [compaction] = conv.meta["compactions"]
    assert compaction["summary"].endswith("the rounding was removed from calc.py.")  # the main log's own
    assert (compaction["agent_log"], compaction["agent_prompt_tokens"]) == ("agent-acompact-1.jsonl", 2303)
    assert conv.meta["repairs"] == ["agent-acompact-1.jsonl:1: hook output the model saw after main entry u-4 "
                                    "(isMeta, logged only by the compaction agent); added as a user message"]


def test_hook_output_after_a_line_that_does_not_decode_comes_at_that_lines_place(tmp_path):
    """The hook output the compaction agent logged hung off main entry u-4; when u-4's line does not
    decode, its uuid is unknown: the hook comes where that line was, found by time (written between
    the entries before and after it), like the main log's entries that hung off the line. Without a
    time that fits, it is left out and the repairs say so."""
    for stamp, placed in (("2025-10-29T10:00:08.500Z", True), ("2025-10-29T11:00:00.000Z", False)):
        folder = tmp_path / str(placed)
        folder.mkdir()
        main = folder / f"{SESSION_ID}.jsonl"
        main.write_text("\n".join("\x00\xff not json" if n == 10 else line
                                  for n, line in enumerate(SESSION.read_text().splitlines())) + "\n")
        compaction_agent(folder, "u-4", timestamp=stamp)
        conv = load_session(main)
        ids = [m.id for m in conv.messages]
        assert ("h-9" in ids) is placed
        if placed:
            assert ids[ids.index("h-9") - 1] == "toolu_03:no-result"  # u-4 held the result of toolu_03
        else:
            assert "agent-acompact-1.jsonl:1: hook output whose main entry is not in this log; left out" in \
                conv.meta["repairs"]


def test_a_compaction_the_main_log_lost_is_recovered_from_its_agent(tmp_path):
    main = with_lines(tmp_path, {}, f"{SESSION_ID}.jsonl", drop=(11, 12))  # no boundary, no summary entry
    compaction_agent(tmp_path, "u-4")
    conv = load_session(main)
    [compaction] = conv.meta["compactions"]
    cut = next(i for i, m in enumerate(conv.messages) if m.tool_call_id == "toolu_03") + 1
    assert conv.messages[cut].id == "h-9"  # the hook after the cut entry was summarised too
    assert compaction["index"] == compaction["at"] == cut + 1
    assert compaction["summary"] == "Summary: add() no longer rounds."
    assert any("records no compaction boundary" in r for r in conv.meta["repairs"])


TASK_OUTPUT = "/tmp/claude-1000/-home-USER-projects-calc/tasks/b51c0de.output"
NOTIFICATION = ("<task-notification>\n<task-id>b51c0de</task-id>\n"
                f"<output-file>{TASK_OUTPUT}</output-file>\n<status>completed</status>\n"
                "<summary>Background command \"Run the test suite\" completed (exit code 0)</summary>\n"
                f"</task-notification>\nRead the output file to retrieve the result: {TASK_OUTPUT}")


def live(kind: str, uuid: str, parent: str | None, content, when: str, **message) -> dict:
    """An entry shaped like the real Claude Code 2.1.39 lines of shared/reallogs (fa812bfe)."""
    entry = {"parentUuid": parent, "isSidechain": False, "userType": "external", "cwd": "/home/USER/projects/calc",
             "sessionId": "9c4e2b7a-1f3d-4e5a-8b6c-7d8e9f0a1b2c", "version": "2.1.39", "gitBranch": "main",
             "slug": "quiet-running-tests", "type": kind, "uuid": uuid, "timestamp": f"2026-02-12T15:{when}Z",
             "message": {"role": kind, "content": content, **message}}
    if kind == "assistant":
        entry["message"].update(model="claude-opus-4-6", type="message", stop_reason=None, usage={
            "input_tokens": 1, "cache_creation_input_tokens": 300, "cache_read_input_tokens": 60000,
            "output_tokens": 20, "service_tier": "standard"})
        entry["requestId"] = f"req_{uuid}"
    return entry


def queued(operation: str, when: str, content: str | None = None) -> dict:
    entry = {"type": "queue-operation", "operation": operation, "timestamp": f"2026-02-12T15:{when}Z",
             "sessionId": "9c4e2b7a-1f3d-4e5a-8b6c-7d8e9f0a1b2c"}
    return entry if content is None else {**entry, "content": content}


def tool(uuid: str, parent: str, call_id: str, name: str, args: dict, when: str) -> dict:
    return live("assistant", uuid, parent, [{"type": "tool_use", "id": call_id, "name": name, "input": args}], when,
                id=f"msg_{uuid}")


def answer(uuid: str, parent: str, call_id: str, text: str, when: str) -> dict:
    return live("user", uuid, parent, [{"tool_use_id": call_id, "type": "tool_result", "content": text}], when)


def test_two_queued_messages_behind_a_task_notification_both_reach_the_conversation(tmp_path):
    """Claude Code 2.1.39 queues a background task's notification (``enqueue`` with its text) and
    delivers it later as an ordinary user entry, as in the shared sessions 4d5611e5 (line 459, then
    line 1502) and fa812bfe (line 390, then line 664). A message the user types while the model works
    is queued behind it and absorbed mid-turn: ``remove``, with no text since 2.0.76. The remove took
    the typed message, not the notification still waiting: each of the two typed messages arrives
    once, where it was absorbed, and the notification once, where it was delivered."""
    entries = [
        live("user", "u1", None, "Run the tests in the background, then fix the parser warnings.", "40:00.000"),
        tool("a1", "u1", "toolu_bg", "Bash", {"command": "mix test", "run_in_background": True}, "40:03.000"),
        answer("r1", "a1", "toolu_bg", "Command running in background with ID: b51c0de.", "40:03.500"),
        tool("a2", "r1", "toolu_read", "Read", {"file_path": "lib/parser.ex"}, "40:06.000"),
        queued("enqueue", "41:10.000", NOTIFICATION),
        queued("enqueue", "41:12.000", "also run the linter when you are done"),
        answer("r2", "a2", "toolu_read", "defmodule Parser do ... end", "41:13.000"),
        queued("remove", "41:13.100"),
        tool("a3", "r2", "toolu_edit", "Edit", {"file_path": "lib/parser.ex"}, "41:20.000"),
        queued("enqueue", "41:25.000", "and keep the public API unchanged"),
        answer("r3", "a3", "toolu_edit", "The file lib/parser.ex has been updated.", "41:26.000"),
        queued("remove", "41:26.100"),
        live("assistant", "a4", "r3", [{"type": "text", "text": "Fixed the warnings; running the linter."}],
             "41:40.000", id="msg_a4"),
        live("user", "u2", "a4", NOTIFICATION, "47:30.000"),
        live("assistant", "a5", "u2", [{"type": "text", "text": "The background tests passed."}], "47:35.000",
             id="msg_a5")]
    path = tmp_path / "9c4e2b7a-1f3d-4e5a-8b6c-7d8e9f0a1b2c.jsonl"
    path.write_text("".join(json.dumps(e) + "\n" for e in entries))
    conv = load_session(path)
    texts = [m.text for m in conv.messages]
    assert texts.count("also run the linter when you are done") == 1
    assert texts.count("and keep the public API unchanged") == 1
    assert texts.count(NOTIFICATION) == 1 and conv.messages[texts.index(NOTIFICATION)].id == "u2"
    assert [(m.role, m.tool_call_id or m.id) for m in conv.messages] == [
        ("user", "u1"), ("assistant", "msg_a1"), ("tool", "toolu_bg"), ("assistant", "msg_a2"), ("tool", "toolu_read"),
        ("user", f"queued@{path}:8"), ("assistant", "msg_a3"), ("tool", "toolu_edit"), ("user", f"queued@{path}:12"),
        ("assistant", "msg_a4"), ("user", "u2"), ("assistant", "msg_a5")]
    assert [r.split(": ", 1)[0] for r in conv.meta["repairs"]] == [f"{path}:8", f"{path}:12"]
    assert conv.meta["skipped"]["queue-operation:enqueue"] == 3
