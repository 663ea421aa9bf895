"""Gemini CLI chat sessions and recorded responses: hand-written files in the shapes gemini-cli's
ChatRecordingService and RecordingContentGenerator write, one test per rule."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from ctxlab.datasets import load_conversations
from ctxlab.datasets.logs.deltas import delta_spans
from ctxlab.datasets.logs.gemini_responses import responses_usage
from ctxlab.errors import InvalidInputError
from tests.datasets.logs.helpers import call_summary, shape

HEAD = {"sessionId": "s-1", "projectHash": "ab" * 32, "startTime": "2026-03-27T10:19:12.584Z",
        "lastUpdated": "2026-03-27T10:22:00.022Z", "kind": "main"}
USER = {"id": "u1", "timestamp": "2026-03-27T10:19:12.584Z", "type": "user", "content": [{"text": "Fix add()."}]}
READ = {"id": "r1", "name": "read_file", "args": {"file_path": "calc.py"}, "status": "success",
        "result": [{"functionResponse": {"id": "r1", "name": "read_file", "response": {"output": "def add(a, b): ..."}}}]}


def gemini(mid: str, text: str = "", calls: list | None = None, tokens: dict | None = None, **extra: Any) -> dict:
    return {"id": mid, "timestamp": "2026-03-27T10:19:18.274Z", "type": "gemini", "content": text,
            "toolCalls": calls or [], "model": "gemini-2.5-pro", **({"tokens": tokens} if tokens else {}), **extra}


def tokens(inp: int, out: int, cached: int = 0, thoughts: int = 0) -> dict[str, int]:
    return {"input": inp, "output": out, "cached": cached, "thoughts": thoughts, "tool": 0,
            "total": inp + out + thoughts}


def messages() -> list[dict]:
    return [USER, gemini("g1", "", [READ], tokens(1000, 20, cached=800)),
            gemini("g2", "Fixed add().", None, tokens(1100, 10, cached=1000))]


def write(tmp_path: Path, lines: list[dict], name: str = "session.jsonl") -> Path:
    path = tmp_path / name
    path.write_text("".join(json.dumps(line) + "\n" for line in lines), encoding="utf-8")
    return path


def test_the_older_single_object_file(tmp_path):
    path = tmp_path / "session-2026-03-27T10-19-s1.json"
    path.write_text(json.dumps({**HEAD, "messages": messages()}), encoding="utf-8")
    conv, = load_conversations(str(path))
    assert conv.id == "s-1" and conv.meta["format"] == "gemini_cli" and conv.meta["kind"] == "main"
    assert shape(conv) == [("user", "u1", None), ("assistant", "g1", ("r1",)), ("tool", "r1", "r1"),
                           ("assistant", "g2", None)]
    assert conv.messages[2].text == "def add(a, b): ..." and conv.messages[2].name == "read_file"
    # promptTokenCount includes the cached tokens (OpenAI-style usage)
    assert call_summary(conv) == [(1, 1000, 200, 800, 0, 20), (3, 1100, 100, 1000, 0, 10)]
    assert [s.skipped for s in delta_spans(conv)] == [None]


def test_jsonl_lines_with_a_known_id_replace_the_message_where_it_stands(tmp_path):
    first = gemini("g1", "", [READ])  # written first without tokens, then rewritten with them
    lines = [HEAD, USER, first, {"$set": {"lastUpdated": "x"}}, messages()[1], messages()[2],
             {"$set": {"summary": "Fix the rounding bug"}}]
    conv, = load_conversations(str(write(tmp_path, lines)))
    assert [m.id for m in conv.messages] == ["u1", "g1", "r1", "g2"] and len(conv.meta["provider_calls"]) == 2
    assert conv.meta["title"] == "Fix the rounding bug"


def test_tool_responses_written_as_user_messages_are_the_results_and_not_doubled(tmp_path):
    answer = {"id": "u2", "timestamp": "2026-03-27T10:19:19Z", "type": "user",
              "content": [{"functionResponse": {"id": "r1", "name": "read_file", "response": {"output": "masked"}}}]}
    lines = [HEAD, USER, messages()[1], answer, messages()[2]]
    conv, = load_conversations(str(write(tmp_path, lines)))
    assert shape(conv) == [("user", "u1", None), ("assistant", "g1", ("r1",)), ("tool", "r1", "r1"),
                           ("assistant", "g2", None)]
    assert conv.messages[2].text == "masked"


def test_a_rewind_removes_the_message_and_what_followed(tmp_path):
    retry = gemini("g3", "Fixed add() again.", None, tokens(1050, 12))
    lines = [HEAD, *messages(), {"$rewindTo": "g2"}, retry]
    conv, = load_conversations(str(write(tmp_path, lines)))
    assert [m.id for m in conv.messages] == ["u1", "g1", "r1", "g3"]
    assert conv.meta["skipped"] == {"message removed by a rewind ($rewindTo)": 1}


def test_a_checkpoint_that_rewrites_the_context_is_a_compaction(tmp_path):
    summary = {"id": "sum", "timestamp": "t", "type": "user", "content": [{"text": "Summary: add() fixed."}]}
    ack = {"id": "ack", "timestamp": "t", "type": "gemini", "content": [{"text": "Got it."}]}
    later = {"id": "u3", "timestamp": "t", "type": "user", "content": "Now add tests."}
    lines = [HEAD, *messages(), {"$set": {"messages": [summary, ack, messages()[2]]}}, later,
             gemini("g4", "Added tests.", None, tokens(400, 30))]
    conv, = load_conversations(str(write(tmp_path, lines)))
    assert [m.id for m in conv.messages] == ["u1", "g1", "r1", "g2", "u3", "g4"]
    assert conv.meta["compactions"] == [{"index": 3, "at": 4, "summary": "Summary: add() fixed.\nGot it.",
                                         "tokens_before": None, "masked": 0}]
    assert [s.skipped for s in delta_spans(conv)] == [None, "a compaction between the calls"]


def test_terminal_messages_thoughts_and_parts(tmp_path):
    thought = {"subject": "Reading", "description": "Look at calc.py first.", "timestamp": "t"}
    image = {"id": "u0", "timestamp": "t", "type": "user",
             "content": [{"text": "See this."}, {"inlineData": {"mimeType": "image/png", "data": "..."}}]}
    lines = [HEAD, {"id": "i1", "timestamp": "t", "type": "info", "content": "Switched model"}, image,
             gemini("g1", "", [READ], tokens(1000, 20, thoughts=300), thoughts=[thought]),
             gemini("g2", "Done.", None, tokens(1400, 5, thoughts=50)),
             {"id": "e1", "timestamp": "t", "type": "error", "content": "quota"}]
    conv, = load_conversations(str(write(tmp_path, lines)))
    assert conv.messages[0].text == "See this.\n[image omitted]" and conv.meta["omitted"] == {"image": 1}
    assert conv.meta["skipped"] == {"info message (shown in the terminal, not sent)": 1,
                                    "error message (shown in the terminal, not sent)": 1}
    assert conv.meta["thinking"] == [
        {"message_id": "g1", "text": "Reading\nLook at calc.py first.", "call_thoughts_tokens": 300},
        {"message_id": "g2", "text": "", "redacted": True, "call_thoughts_tokens": 50}]
    assert [c["output_tokens"] for c in conv.meta["provider_calls"]] == [320, 55]  # thoughts are output
    # the later prompt carries the thinking of the tool loop (thought signatures), whose size the
    # summaries do not tell but the call's thoughts count does
    span, = delta_spans(conv)
    assert (span.skipped, span.actual, span.thinking_tokens, span.thinking) == (None, 400, 300, ())


def test_subagent_sessions_and_bad_lines(tmp_path):
    conv, = load_conversations(str(write(tmp_path, [{**HEAD, "kind": "subagent"}, *messages()])))
    assert conv.meta["subagent"] is True
    path = write(tmp_path, [HEAD, {"what": 1}], "bad.jsonl")
    with pytest.raises(InvalidInputError, match=r"bad.jsonl: no conversation messages left after skipping 1 bad "
                                                r"line\(s\), the first at line 2: a line that is neither session metadata"):
        list(load_conversations(str(path)))
    user, g1, g2 = messages()
    path = write(tmp_path, [HEAD, user, {**g1, "thoughts": 3}, g2], "wrong.jsonl")
    conv, = load_conversations(str(path))  # a line with a field of the wrong type: skipped where it stood
    assert shape(conv) == [("user", "u1", None), ("assistant", "g2", None)]
    assert conv.meta["bad_lines"] == [{"where": f"{path}:3", "reason": "'thoughts' is int, not a list", "at": 1}]
    assert [s.skipped for s in delta_spans(conv)] == []  # one call left: no pair


def stream(*chunks: dict) -> dict[str, Any]:
    return {"method": "generateContentStream", "response": [
        {"candidates": [{"content": {"parts": [{"text": "x"}], "role": "model"}}], "usageMetadata": c}
        for c in chunks]}


def test_recorded_responses_are_refused_in_one_line_and_their_usage_read(tmp_path):
    path = tmp_path / "hooks.responses"
    path.write_text(json.dumps(stream({"promptTokenCount": 100, "totalTokenCount": 110, "thoughtsTokenCount": 10},
                                      {"promptTokenCount": 100, "candidatesTokenCount": 5, "totalTokenCount": 120,
                                       "cachedContentTokenCount": 64, "thoughtsTokenCount": 15})) + "\n"
                    + json.dumps({"method": "countTokens", "response": {"totalTokens": 7}}) + "\n", encoding="utf-8")
    with pytest.raises(InvalidInputError) as err:
        list(load_conversations(str(path)))
    assert str(err.value) == (f"{path}: gemini-cli recorded responses (--record-responses): responses only, no "
                              "prompts or tool results, so not a conversation (1 generateContentStream, 1 countTokens "
                              "calls, 100 prompt and 20 output tokens; gemini_responses.responses_usage reads them)")
    assert [tuple(u)[1:] for u in responses_usage(path)] == [("generateContentStream", 100, 64, 5, 15, 120),
                                                            ("countTokens", 0, 0, 0, 0, 0)]
    # In a folder (gemini-cli's integration-tests/ keeps them beside other files) it is a recorded skip,
    # even strictly: the folder's conversations still load.
    write(tmp_path, [HEAD, *messages()])
    skips: list[tuple[str, str]] = []
    conv, = load_conversations(str(tmp_path), on_skip=lambda where, reason: skips.append((where, reason)))
    assert conv.id == "s-1" and skips == [(str(path), str(err.value).removeprefix(f"{path}: "))]


def test_what_newer_files_hold_context_null_tokens_and_a_torn_last_write(tmp_path):
    """gemini-cli records the environment context it sends as a user message; a message written
    before its usage arrived has ``"tokens": null``; a killed session leaves half a line."""
    context = {"id": "0", "timestamp": "t", "type": "user",
               "content": [{"text": "<session_context>\nThis is the Gemini CLI.\n</session_context>"}]}
    path = write(tmp_path, [HEAD, context, USER, {**gemini("g1", "Hi."), "tokens": None}])
    with path.open("a", encoding="utf-8") as f:
        f.write('{"id": "g2", "timestamp"')
    conv, = load_conversations(str(path))
    assert [m.id for m in conv.messages] == ["0", "u1", "g1"] and conv.meta["provider_calls"] == []
    assert conv.meta["repairs"] == [f"{path}:5: dropped the cut-off last line (malformed JSON: Expecting ':' "
                                    "delimiter (column 25))"]


def test_model_messages_written_as_parts(tmp_path):
    """A checkpoint rewrites turns as Gemini parts: calls as functionCall parts, thoughts as thought parts."""
    turn = {"id": "g1", "timestamp": "t", "type": "gemini", "content": [
        {"text": "Plan: read it.", "thought": True},
        {"functionCall": {"id": "r1", "name": "read_file", "args": {"file_path": "calc.py"}}}]}
    answer = {"id": "u2", "timestamp": "t", "type": "user", "content": [
        {"functionResponse": {"id": "r1", "name": "read_file", "response": {"error": "missing"}}}]}
    conv, = load_conversations(str(write(tmp_path, [HEAD, USER, turn, answer])))
    assert shape(conv) == [("user", "u1", None), ("assistant", "g1", ("r1",)), ("tool", "r1", "r1")]
    assert conv.messages[2].text == '{"error":"missing"}' and "omitted" not in conv.meta
    assert conv.meta["thinking"] == [{"message_id": "g1", "text": "Plan: read it."}]
