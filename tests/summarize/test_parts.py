"""The summarizers' parts: registry, section parsing, serialization, tool-call classification,
and the call cache."""

from __future__ import annotations

import json

import pytest

from ctxlab.errors import CtxlabError, UnknownNameError
from ctxlab.messages import Message, ToolCall
from ctxlab.summarize import Summarizer, SummaryResult, get_summarizer, list_summarizers
from ctxlab.summarize.cache import DuckDBCache, MemoryCache, NoCache, call_key, open_cache, scrub
from ctxlab.summarize.extractive import ExtractiveSummarizer
from ctxlab.summarize.message import summary_message, unwrap, wrap
from ctxlab.summarize.sections import CONTEXT, GOAL, MODIFIED, NEXT, PROGRESS, READ, parse_summary, render
from ctxlab.summarize.serialize import serialize
from ctxlab.summarize.toolcalls import classify, file_operations
from ctxlab.tokens import get_counter
from tests.builders import huge_text


def test_registry() -> None:
    assert list_summarizers() == ["extractive", "llm"]
    assert isinstance(get_summarizer("extractive"), ExtractiveSummarizer)
    assert get_summarizer({"name": "llm", "params": {"model": "openai/x"}}).model == "openai/x"
    custom = ExtractiveSummarizer()
    assert get_summarizer(custom) is custom and isinstance(custom, Summarizer)
    with pytest.raises(UnknownNameError, match="valid: extractive, llm"):
        get_summarizer("magic")
    with pytest.raises(UnknownNameError, match="parameter of summarizer 'llm'"):
        get_summarizer("llm", modle="x")
    with pytest.raises(CtxlabError, match="unknown prompt"):
        get_summarizer("llm", prompt="poem")


def test_summary_result_ok() -> None:
    assert SummaryResult("text").ok and not SummaryResult("", error="boom").ok and not SummaryResult("  ").ok


def test_parse_and_render_round_trip() -> None:
    sections = {GOAL: ["Ship it"], READ: ["a.py", "b.py"], NEXT: ["Deploy"]}
    text = render(sections)
    assert text == "## Goal\n- Ship it\n\n## Files Read\n- a.py\n- b.py\n\n## Next Steps\n- Deploy"
    assert parse_summary(text) == sections


def test_parse_aliases_tags_and_unknown_headers() -> None:
    text = ("Intro line\n## Done\n- [x] step one\n**Next:**\n1. step two\n### Something else\n- misc\n"
            "<modified-files>\nsrc/a.py\n</modified-files>\n---\n- (none)")
    parsed = parse_summary(text)
    assert parsed == {CONTEXT: ["Intro line", "misc"], PROGRESS: ["step one"], NEXT: ["step two"],
                      MODIFIED: ["src/a.py"]}


def test_summary_message_wraps_and_unwraps() -> None:
    m = summary_message("## Goal\n- x", ["m1", "m2"], {"m1", "m2", "summary@m2"})
    assert m.role == "user" and m.mark == "summary" and m.source_ids == ("m1", "m2")
    assert m.id == "summary@m2#2" and unwrap(m.text) == "## Goal\n- x"
    assert m.text.startswith("The conversation history before this point was compacted")
    assert unwrap(wrap("")) == ""


def test_serialize_transcript() -> None:
    messages = (
        Message("system", "Be brief.", id="s"),
        Message("user", "Fix it.", id="u"),
        Message("assistant", "Looking.", id="a", tool_calls=(
            ToolCall("c1", "read_file", json.dumps({"path": "a.py", "start_line": 3})),
            ToolCall("c2", "write_file", json.dumps({"path": "b.py", "content": "x" * 2000})))),
        Message("tool", huge_text(20_000), id="t1", tool_call_id="c1"),
        Message("tool", "ok", id="t2", tool_call_id="c2"),
        Message("user", wrap("## Goal\n- earlier"), id="p", mark="summary"),
    )
    text = serialize(messages, counter=get_counter("o200k_base"), tool_output_tokens=200)
    blocks = text.split("\n\n")
    assert blocks[:4] == ["[System]: Be brief.", "[User]: Fix it.", "[Assistant]: Looking.",
                          '[Assistant tool call]: read_file(path="a.py", start_line=3)']
    assert blocks[4].startswith('[Assistant tool call]: write_file(path="b.py", content="xxx')
    assert "characters truncated" in blocks[4] and len(blocks[4]) < 800
    assert "[Tool result read_file]: HEAD>" in text and "<TAIL" in text and "[Tool result write_file]: ok" in text
    assert text.endswith("[Previous summary]: ## Goal\n- earlier")
    assert "characters truncated" in serialize(messages[3:4])  # without a counter: by characters


def test_classify_tool_calls() -> None:
    def kind(name: str, **args):
        info = classify(ToolCall("c", name, json.dumps(args)))
        return info.kind, info.paths, info.command

    assert kind("read_file", path="a.py") == ("read", ("a.py",), None)
    assert kind("Read", file_path="a.py") == ("read", ("a.py",), None)
    assert kind("edit_file", path="a.py") == ("modify", ("a.py",), None)
    assert kind("str_replace_based_edit_tool", command="view", path="a.py")[0] == "read"
    assert kind("str_replace_based_edit_tool", command="str_replace", path="a.py")[0] == "modify"
    assert kind("apply_patch", input="*** Update File: src/x.py\n*** Add File: src/y.py\n") == \
        ("modify", ("src/x.py", "src/y.py"), None)
    assert kind("bash", command="make test") == ("command", (), "make test")
    assert kind("web_fetch", url="https://x.org")[0] == "other"
    assert kind("custom_tool", path="notes.txt")[0] == "read"  # generic fallback on the path key
    assert classify(ToolCall("c", "read_file", "not json")).kind == "other"
    reads, mods = file_operations([Message("assistant", None, id="a", tool_calls=(
        ToolCall("1", "read_file", '{"path": "a.py"}'), ToolCall("2", "edit_file", '{"path": "a.py"}'),
        ToolCall("3", "grep", '{"pattern": "x", "path": "src"}')))])
    assert (reads, mods) == (["src"], ["a.py"])


def test_cache_keys_and_scrubbing() -> None:
    key = call_key("m", "structured", "prompt", {"temperature": 0, "api_key": "sk-1"}, "h")
    assert key == call_key("m", "structured", "prompt", {"temperature": 0, "api_key": "sk-2"}, "h")
    assert key != call_key("m", "structured", "prompt v2", {"temperature": 0}, "h")
    assert key != call_key("m2", "structured", "prompt", {"temperature": 0}, "h")
    assert key != call_key("m", "structured", "prompt", {"temperature": 0}, "h2")
    assert scrub({"a": 1, "api_key": "x", "nested": {"Authorization": "y", "max_tokens": 5}}) == \
        {"a": 1, "nested": {"max_tokens": 5}}


def test_caches(tmp_path) -> None:
    record = {"model": "m", "prompt_name": "p", "params": {"t": 0, "api_key": "sk"}, "input_hash": "h",
              "response": "summary", "input_tokens": 3, "output_tokens": 2, "cost_usd": None,
              "latency_ms": 1.5, "error": None}
    for cache in (MemoryCache(), DuckDBCache(tmp_path / "c.duckdb")):
        assert cache.get("k") is None
        cache.put("k", record)
        got = cache.get("k")
        assert got["response"] == "summary" and got["params"] == {"t": 0} and got["key"] == "k"
    assert NoCache().get("k") is None
    assert isinstance(open_cache("memory"), MemoryCache) and isinstance(open_cache("off"), NoCache)
    assert open_cache(str(tmp_path / "x.duckdb")).path == tmp_path / "x.duckdb"
