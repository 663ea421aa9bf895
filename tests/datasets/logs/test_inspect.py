"""inspect_ai eval logs: hand-written logs in the shapes of inspect_ai's ``EvalLog`` (``.json``) and
``.eval`` zips, one test per rule of `ctxlab.datasets.logs.inspect_log`."""

from __future__ import annotations

import json
import re
import zipfile
from pathlib import Path
from typing import Any

import pytest

from ctxlab.datasets import load_conversations
from ctxlab.datasets.logs.deltas import delta_spans
from ctxlab.errors import InvalidInputError
from tests.datasets.logs.helpers import call_summary, shape

SYSTEM = {"id": "s", "role": "system", "content": "You fix bugs."}
USER = {"id": "u", "role": "user", "content": "Fix add().", "source": "input"}
CALL = {"id": "a1", "role": "assistant", "content": "", "source": "generate",
        "tool_calls": [{"id": "c1", "function": "bash", "arguments": {"cmd": "cat calc.py"}}]}
RESULT = {"id": "t1", "role": "tool", "tool_call_id": "c1", "function": "bash", "content": "def add(a, b): ..."}
ANSWER = {"id": "a2", "role": "assistant", "content": "Fixed.",
          "tool_calls": [{"id": "c2", "function": "submit", "arguments": {"answer": "ok"}}]}
SUBMITTED = {"id": "t2", "role": "tool", "tool_call_id": "c2", "function": "submit", "content": "ok"}
TOOLS = [{"name": "bash", "description": "Run a command.", "parameters": {"type": "object", "properties": {}}}]


def usage(inp: int, out: int, read: int = 0, total: int | None = None, **extra: int) -> dict[str, int]:
    return {"input_tokens": inp, "output_tokens": out, "input_tokens_cache_read": read,
            "total_tokens": inp + out if total is None else total, **extra}


def model(inputs: list[dict], reply: dict | None, used: dict | None, **extra: Any) -> dict[str, Any]:
    output = {"model": "gpt-4o-mini-2024-07-18", "choices": [{"message": reply}] if reply else [], "usage": used}
    return {"event": "model", "model": "openai/gpt-4o-mini", "input": inputs, "tools": TOOLS, "output": output,
            "timestamp": "2025-05-12T20:27:40-04:00", **extra}


def sample(events: list[dict], messages: list[dict], sid: Any = 1, **extra: Any) -> dict[str, Any]:
    return {"id": sid, "epoch": 1, "input": "Fix add().", "target": "", "messages": messages, "events": events,
            **extra}


def story() -> dict[str, Any]:
    """A two-call tool loop: the agent reads a file, answers with submit; the submit result ends it."""
    events = [model([SYSTEM, USER], CALL, usage(1000, 20)),
              {"event": "tool", "id": "c1", "function": "bash"},
              model([SYSTEM, USER, CALL, RESULT], ANSWER, usage(1100, 30, read=1024, total=1130))]
    return sample(events, [SYSTEM, USER, CALL, RESULT, ANSWER, SUBMITTED],
                  model_usage={"openai/gpt-4o-mini": usage(2100, 50, read=1024, total=2150)})


def log(*samples: dict, **extra: Any) -> dict[str, Any]:
    spec = {"eval_id": "E1", "task": "fix", "model": "openai/gpt-4o-mini", "packages": {"inspect_ai": "0.3.95"}}
    return {"version": 2, "status": "success", "eval": spec, "samples": list(samples), **extra}


def write_json(tmp_path: Path, value: dict, name: str = "log.json") -> Path:
    path = tmp_path / name
    path.write_text(json.dumps(value), encoding="utf-8")
    return path


def write_eval(tmp_path: Path, value: dict, name: str = "log.eval") -> Path:
    path = tmp_path / name
    with zipfile.ZipFile(path, "w") as archive:
        archive.writestr("header.json", json.dumps({k: v for k, v in value.items() if k != "samples"}))
        for s in value.get("samples") or []:
            archive.writestr(f"samples/{s['id']}_epoch_{s['epoch']}.json", json.dumps(s))
    return path


def test_a_sample_is_its_model_calls_in_order_with_their_usage(tmp_path):
    conv, = load_conversations(str(write_json(tmp_path, log(story()))))
    assert conv.id == "E1:1:1" and conv.meta["format"] == "inspect" and conv.meta["task"] == "fix"
    assert shape(conv) == [("system", "s", None), ("user", "u", None), ("assistant", "a1", ("c1",)),
                           ("tool", "t1", "c1"), ("assistant", "a2", ("c2",)), ("tool", "t2", "c2")]
    assert conv.messages[2].tool_calls[0].arguments == '{"cmd":"cat calc.py"}'
    # OpenAI in inspect < 0.3.184: input_tokens included the cached tokens (total = input + output)
    assert call_summary(conv) == [(2, 1000, 1000, 0, 0, 20), (4, 1100, 76, 1024, 0, 30)]
    assert conv.meta["model"] == "gpt-4o-mini-2024-07-18"
    assert [t["function"]["name"] for t in conv.tools] == ["bash"]
    assert conv.meta["usage_check"]["agree"] is True and "repairs" not in conv.meta
    assert [s.skipped for s in delta_spans(conv)] == [None]


def test_the_eval_zip_holds_the_same_log_and_samples_load_in_id_order(tmp_path):
    value = log({**story(), "id": 2}, story())
    write_eval(tmp_path, value)
    write_json(tmp_path, value)
    assert [c.id for c in load_conversations(str(tmp_path / "log.eval"))] == ["E1:1:1", "E1:2:1"]
    assert [c.id for c in load_conversations(str(tmp_path / "log.json"))] == ["E1:2:1", "E1:1:1"]  # as written
    assert len(list(load_conversations(f"inspect:{tmp_path}"))) == 4


@pytest.mark.parametrize("pooled", ["message_pool", "events_data"])
def test_inputs_stored_as_references_into_the_message_pool_are_expanded(tmp_path, pooled):
    """Log version 3 keeps one pool per sample and ranges [start, end) into it; later logs put the
    pool in events_data.messages."""
    pool = [SYSTEM, USER, CALL, RESULT]
    s = story()
    s["events"][0] = {**s["events"][0], "input": [], "input_refs": [[0, 2]]}
    s["events"][2] = {**s["events"][2], "input": [], "input_refs": [[0, 2], [2, 4]]}
    s.update({"message_pool": pool} if pooled == "message_pool" else {"events_data": {"messages": pool, "calls": []}})
    conv, = load_conversations(str(write_eval(tmp_path, {**log(s), "version": 3})))
    assert [m.id for m in conv.messages] == ["s", "u", "a1", "t1", "a2", "t2"]
    assert len(conv.meta["provider_calls"]) == 2 and conv.meta["log_version"] == 3


def test_a_reference_outside_the_pool_is_a_located_error_and_the_other_samples_load(tmp_path):
    bad = story()
    bad["events"][0] = {**bad["events"][0], "input": [], "input_refs": [[0, 9]]}
    path = write_eval(tmp_path, log({**bad, "id": 1, "message_pool": [SYSTEM]}, {**story(), "id": 2}))
    skips: list[tuple[str, str]] = []
    convs = list(load_conversations(str(path), strict=False, on_skip=lambda w, r: skips.append((w, r))))
    assert [c.id for c in convs] == ["E1:2:1"]
    assert skips == [(f"{path}:samples/1_epoch_1.json", "model event 0: input_refs [0, 9] outside the message pool "
                                                       "(1 messages)")]
    with pytest.raises(InvalidInputError, match="samples/1_epoch_1.json: model event 0"):
        list(load_conversations(str(path)))


def test_attachments_are_resolved_and_a_missing_one_is_counted(tmp_path):
    s = story()
    s["events"][2]["input"][3] = {**RESULT, "content": "attachment://abc"}
    s["messages"][3] = {**RESULT, "content": "attachment://abc"}
    s["messages"][0] = {**SYSTEM, "content": "tc://gone"}
    s["events"][0]["input"][0] = s["events"][2]["input"][0] = s["messages"][0]
    s["attachments"] = {"abc": "def add(a, b): return a + b"}
    conv, = load_conversations(str(write_json(tmp_path, log(s))))
    assert conv.messages[3].text == "def add(a, b): return a + b"
    assert conv.messages[0].text == "tc://gone" and conv.meta["omitted"] == {"unresolved attachment": 3}


def test_scorer_calls_and_other_conversations_are_counted_not_imported(tmp_path):
    s = story()
    grader = model([{"id": "g", "role": "user", "content": "Grade this."}], {"role": "assistant", "content": "C"},
                   usage(50, 1))
    helper = model([{"id": "h", "role": "user", "content": "Summarise."}], {"role": "assistant", "content": "S"},
                   usage(40, 2))
    s["events"] = [s["events"][0], helper, *s["events"][1:],
                   {"event": "span_begin", "id": "sc", "type": "scorer", "name": "model_graded_qa"}, grader,
                   {"event": "span_end", "id": "sc"}]
    s["model_usage"] = {"openai/gpt-4o-mini": usage(2190, 53, read=1024, total=2243)}
    conv, = load_conversations(str(write_json(tmp_path, log(s))))
    assert [m.id for m in conv.messages] == ["s", "u", "a1", "t1", "a2", "t2"]
    assert conv.meta["skipped"] == {"model call of another conversation (subagent or side call)": 1,
                                    "model call of a scorer": 1}
    assert conv.meta["usage_check"]["agree"] is True  # every call's usage counts in the check


def test_older_logs_nest_sub_events_and_scorer_steps(tmp_path):
    s = story()
    grader = model([{"id": "g", "role": "user", "content": "Grade."}], {"role": "assistant", "content": "C"},
                   usage(5, 1))
    s["events"] = [{"event": "subtask", "name": "solve", "events": s["events"]},
                   {"event": "step", "action": "begin", "type": "scorer", "name": "match"}, grader,
                   {"event": "step", "action": "end", "type": "scorer", "name": "match"}]
    s.pop("model_usage")
    conv, = load_conversations(str(write_json(tmp_path, log(s))))
    assert len(conv.meta["provider_calls"]) == 2 and conv.meta["skipped"] == {"model call of a scorer": 1}
    assert conv.meta["usage_check"]["agree"] is None  # the sample recorded no model_usage


def test_the_oldest_logs_keep_events_and_attachments_in_a_transcript(tmp_path):
    s = story()
    s["messages"][3] = {**RESULT, "content": "attachment://abc"}
    s["transcript"] = {"events": s.pop("events"), "content": {"abc": "def add(a, b): return a + b"}}
    conv, = load_conversations(str(write_json(tmp_path, log(s))))
    assert len(conv.meta["provider_calls"]) == 2 and conv.messages[3].text == "def add(a, b): ..."
    assert "omitted" not in conv.meta


def test_a_compaction_rewrites_the_prompt_and_is_recorded(tmp_path):
    summary = {"id": "sum", "role": "user", "content": "Summary: read calc.py, add() rounds."}
    later = {"id": "a3", "role": "assistant", "content": "Done."}
    s = story()
    s["events"] += [{"event": "compaction", "type": "summary", "tokens_before": 1200, "tokens_after": 300},
                    model([SYSTEM, summary, ANSWER, SUBMITTED], later, usage(300, 5))]
    s["messages"] = [SYSTEM, summary, ANSWER, SUBMITTED, later]
    s.pop("model_usage")
    conv, = load_conversations(str(write_json(tmp_path, log(s))))
    assert [m.id for m in conv.messages] == ["s", "u", "a1", "t1", "a2", "t2", "a3"]
    compaction, = conv.meta["compactions"]
    assert compaction == {"index": 4, "at": 5, "summary": "Summary: read calc.py, add() rounds.",
                          "tokens_before": 1200, "type": "summary", "tokens_after": 300}
    assert [s.skipped for s in delta_spans(conv)] == [None, "a compaction between the calls"]


def test_failed_and_cached_calls(tmp_path):
    s = story()
    s["events"].insert(0, model([SYSTEM, USER], None, None, error="rate limited"))
    s["events"][3] = {**s["events"][3], "cache": "read"}
    s.pop("model_usage")
    conv, = load_conversations(str(write_json(tmp_path, log(s))))
    assert [m.id for m in conv.messages] == ["s", "u", "a1", "t1", "a2", "t2"]
    assert len(conv.meta["provider_calls"]) == 1
    assert conv.meta["skipped"] == {"model call without a reply (failed)": 1,
                                    "model call answered from inspect's local cache (no provider call)": 1}


@pytest.mark.parametrize(("raw", "split"), [
    (usage(1100, 30, read=1024, total=1130), (76, 1024, 0, 30)),  # OpenAI before 0.3.184: cache inside input
    (usage(76, 30, read=1024, total=1130), (76, 1024, 0, 30)),  # 0.3.184 and Anthropic: cache apart
    ({"input_tokens": 500, "output_tokens": 20, "reasoning_tokens": 80, "total_tokens": 600}, (500, 0, 0, 100)),
    ({"input_tokens": 10, "output_tokens": 5, "input_tokens_cache_write": 90, "total_tokens": 105}, (10, 0, 90, 5)),
])
def test_usage_is_the_reading_total_tokens_confirms(raw, split):
    from ctxlab.datasets.logs.inspect_usage import usage as read_usage

    assert tuple(read_usage(raw)) == split


def test_messages_after_the_last_call_are_kept_only_when_they_extend_it(tmp_path):
    s = story()
    s["messages"] = [SYSTEM, USER, CALL, RESULT, {"id": "x", "role": "user", "content": "edited history"}]
    s.pop("model_usage")
    conv, = load_conversations(str(write_json(tmp_path, log(s))))
    assert [m.id for m in conv.messages] == ["s", "u", "a1", "t1", "a2", "c2:no-result"]
    assert "sample.messages differs from the last model call's prompt" in conv.meta["repairs"][0]


def test_content_parts_tool_errors_and_reasoning(tmp_path):
    reply = {"id": "a1", "role": "assistant", "content": [
        {"type": "reasoning", "reasoning": "Read the file first."},
        {"type": "reasoning", "reasoning": "ENCRYPTED", "redacted": True},
        {"type": "text", "text": "Reading."}, {"type": "image", "image": "data:..."}],
        "tool_calls": CALL["tool_calls"]}
    failed = {**RESULT, "content": "", "error": {"type": "timeout", "message": "timed out"}}
    s = sample([model([USER], reply, usage(10, 5))], [USER, reply, failed])
    conv, = load_conversations(str(write_json(tmp_path, log(s))))
    assert conv.messages[1].text == "Reading.\n[image omitted]" and conv.messages[2].text == "Error: timed out"
    assert conv.meta["thinking"] == [{"message_id": "a1", "text": "Read the file first."},
                                     {"message_id": "a1", "text": "", "redacted": True}]


def test_usage_totals_that_disagree_are_said(tmp_path):
    s = story()
    s["model_usage"] = {"openai/gpt-4o-mini": usage(9999, 50)}
    conv, = load_conversations(str(write_json(tmp_path, log(s, stats={"model_usage": {
        "openai/gpt-4o-mini": usage(5, 5)}}))))
    assert conv.meta["usage_check"]["agree"] is False and conv.meta["log_usage_check"]["agree"] is False
    assert [r.split(":")[0] for r in conv.meta["repairs"]] == ["usage check", "log usage check"]


def test_a_sample_without_model_events_is_its_messages(tmp_path):
    conv, = load_conversations(str(write_json(tmp_path, log(sample([], [USER, {**ANSWER, "tool_calls": []}])))))
    assert [m.id for m in conv.messages] == ["u", "a2"] and conv.meta["provider_calls"] == []
    assert conv.meta["repairs"] == ["no model events: the conversation is sample.messages, with no per-call usage"]


@pytest.mark.parametrize(("content", "reason"), [
    (b"not a zip", "not a readable .eval file (a zip archive)"),
    (None, "an inspect log with no samples (status 'success'; written without samples?)"),
])
def test_bad_eval_files_are_one_located_error(tmp_path, content, reason):
    path = tmp_path / "bad.eval"
    if content is None:
        write_eval(tmp_path, log(), "bad.eval")
    else:
        path.write_bytes(content)
    with pytest.raises(InvalidInputError, match=re.escape(reason)):
        list(load_conversations(str(path)))
