"""Every token counter: the seeds' exact formulas, tiktoken parity, the cookbook's chat overhead,
offline loading, caching, Hugging Face tokenizer files and the legacy Claude tokenizer."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest
import tiktoken

from ctxlab.errors import CtxlabError, UnknownNameError
from ctxlab.messages import Message, ToolCall
from ctxlab.tokens import get_counter, list_counters
from ctxlab.tokens.estimators import AsciiCjk, Bytes4, Chars2, Chars3, Chars4, utf16_len
from ctxlab.tokens.exact import TiktokenCounter, litellm_tokenizer_dir

CALL = ToolCall("call_1", "read_file", '{"path":"src/app.py"}')
COOKBOOK_MESSAGES = [
    {"role": "system", "content": "You are a helpful, pattern-following assistant that translates corporate "
                                  "jargon into plain English."},
    {"role": "system", "name": "example_user", "content": "New synergies will help drive top-line growth."},
    {"role": "system", "name": "example_assistant", "content": "Things working well together will increase revenue."},
    {"role": "system", "name": "example_user", "content": "Let's circle back when we have more bandwidth to touch "
                                                          "base on opportunities for increased leverage."},
    {"role": "system", "name": "example_assistant", "content": "Let's talk later when we're less busy about how to "
                                                               "do better."},
    {"role": "user", "content": "This late pivot means we don't have time to boil the ocean for the client "
                                "deliverable."},
]
WEATHER_TOOLS = [{"type": "function", "function": {
    "name": "get_current_weather",
    "description": "Get the current weather in a given location",
    "parameters": {"type": "object", "properties": {
        "location": {"type": "string", "description": "The city and state, e.g. San Francisco, CA"},
        "unit": {"type": "string", "description": "The unit of temperature to return",
                 "enum": ["celsius", "fahrenheit"]}},
        "required": ["location"]}}}]
WEATHER_MESSAGES = [
    {"role": "system", "content": "You are a helpful assistant that can answer to questions about the weather."},
    {"role": "user", "content": "What's the weather like in San Francisco?"},
]
TEXTS = ["hello world", "你好，世界！上下文压缩", "def f(x):\n    return x ** 2\n", '{"a": [1, 2, 3], "b": null}',
         "emoji 😀 and accents: café, naïve", "x" * 5000, "  \n\t  "]


def assistant_with_calls(*calls: ToolCall, content: str | None = None) -> Message:
    return Message(role="assistant", content=content, id="a1", tool_calls=calls)


# --- seed 004: ascii_cjk ---------------------------------------------------------------------

@pytest.mark.parametrize(("text", "expected"), [("hello", 2), ("你好", 2), ("hello你好", 4), ("", 0), ("abcd", 1)])
def test_ascii_cjk_text(text, expected):
    assert AsciiCjk().count(text) == expected


def test_ascii_cjk_message_overheads():
    counter = AsciiCjk()
    assert counter.count_message(Message(role="user", content="hello", id="u")) == 2 + 10
    assert len(CALL.arguments) == 21  # 21 ASCII chars -> 6 tokens
    message = assistant_with_calls(CALL, ToolCall("call_2", "read_file", CALL.arguments), content="ok")
    assert counter.count_message(message) == 1 + 10 + 2 * (50 + 6)


# --- seed 000: chars4 ------------------------------------------------------------------------

@pytest.mark.parametrize(("text", "expected"), [("abcd", 1), ("abcde", 2), ("你好", 1), ("你好世界上", 2), ("", 0)])
def test_chars4_text_is_runes_plus_three_over_four(text, expected):
    assert Chars4().count(text) == expected


def test_chars4_message_counts_runes_of_content_and_calls_together():
    message = assistant_with_calls(CALL, content="你好")  # 2 + 9 + 21 runes = 32
    assert Chars4().count_message(message) == (2 + len("read_file") + len(CALL.arguments) + 3) // 4 == 8
    assert Chars4().count_message(Message(role="user", content=("ab", "cd", "e"), id="u")) == (5 + 3) // 4


# --- seed 001: chars2 ------------------------------------------------------------------------

def test_chars2_is_len_over_two_per_block_plus_four_per_message():
    counter = Chars2()
    assert counter.count("hello world") == 5
    assert counter.count_message(Message(role="user", content="hello world", id="u")) == 5 + 4
    assert counter.count_message(Message(role="user", content=("abcd", "efg"), id="u")) == 2 + 1 + 4
    expected = 4 + len("read_file") // 2 + len(CALL.arguments) // 2
    assert counter.count_message(assistant_with_calls(CALL)) == expected


# --- seed 003: chars3 ------------------------------------------------------------------------

@pytest.mark.parametrize(("text", "expected"), [("abc", 1), ("abcd", 2), ("😀", 1), ("😀😀", 2), ("a😀", 1), ("你好吗", 1)])
def test_chars3_counts_utf16_units(text, expected):
    assert Chars3().count(text) == expected


def test_chars3_emoji_is_two_utf16_units():
    assert utf16_len("😀") == 2 and len("😀") == 1
    assert Chars3().count("😀😀") == 2  # 4 units; counting code points would give 1


def test_chars3_tool_calls_are_compact_json():
    compact = ('[{"id":"call_1","type":"function","function":{"name":"read_file",'
               '"arguments":"{\\"path\\":\\"src/app.py\\"}"}}]')
    assert json.loads(compact)[0]["function"]["arguments"] == CALL.arguments
    message = assistant_with_calls(CALL, content="hi")
    assert Chars3().count_message(message) == 1 + -(-len(compact) // 3)


# --- seed 002: bytes4 ------------------------------------------------------------------------

@pytest.mark.parametrize(("text", "expected"), [("abc", 0), ("abcd", 1), ("abcdefg", 1), ("你", 0), ("你好", 1),
                                                ("你好世界", 3), ("😀", 1), ("", 0)])
def test_bytes4_is_utf8_bytes_over_four_rounded_down(text, expected):
    """Issue 16, item 6. Seed 002: ``func (c *EstimatedCounter) Count(text string) int { return
    int(float64(len(text)) / c.CharsPerToken) }``, "1 token ≈ 4 字符"; Go's len is UTF-8 bytes."""
    assert Bytes4().count(text) == expected
    assert get_counter("bytes4").count(text) == len(text.encode()) // 4


def test_bytes4_message_follows_the_upstream_count_messages():
    """Per message 4 + role + content (+ name + 1), 3 to prime the reply (the seed's upstream
    EstimatedCounter.CountMessages); tool definitions are ignored like every seed estimator's."""
    counter = Bytes4()
    assert counter.count_message(Message(role="user", content="hello world!", id="u")) == 4 + 1 + 3
    named = Message(role="assistant", content="ok", id="a", name="bob_2")  # role 9 bytes, name 5 bytes
    assert counter.count_message(named) == 4 + 2 + 0 + 1 + 1
    assert counter.count_message(assistant_with_calls(CALL)) == 4 + 2 + 2 + 5
    assert counter.overhead(WEATHER_TOOLS) == counter.overhead() == 3


# --- exact counters --------------------------------------------------------------------------

@pytest.mark.parametrize("encoding", ["o200k_base", "cl100k_base"])
@pytest.mark.parametrize("text", TEXTS)
def test_tiktoken_parity(encoding, text):
    assert get_counter(encoding).count(text) == len(tiktoken.get_encoding(encoding).encode(text))


@pytest.mark.parametrize(("encoding", "expected"), [("cl100k_base", 129), ("o200k_base", 124)])
def test_cookbook_example_messages(encoding, expected):
    assert get_counter(encoding).count_messages(COOKBOOK_MESSAGES) == expected


@pytest.mark.parametrize(("encoding", "expected"), [("cl100k_base", 105), ("o200k_base", 101)])
def test_cookbook_tool_example(encoding, expected):
    assert get_counter(encoding).count_messages(WEATHER_MESSAGES, WEATHER_TOOLS) == expected


def test_tiktoken_loads_offline_with_an_empty_user_cache(tmp_path):
    code = ("from ctxlab.tokens import get_counter; "
            "print(get_counter('o200k_base').count('hello world'), get_counter('cl100k_base').count('hello world'))")
    env = {**os.environ, "TIKTOKEN_CACHE_DIR": str(tmp_path), "HF_HUB_OFFLINE": "1"}
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    assert out.stdout.split() == ["2", "2"]
    assert list(tmp_path.iterdir()) == []  # nothing was downloaded into the user's cache


def test_exact_counters_say_so():
    assert get_counter("o200k_base").exact and get_counter("claude_legacy").exact
    assert not any(get_counter(n).exact for n in ("chars4", "chars2", "chars3", "ascii_cjk", "calibrated"))


# --- caching, Hugging Face files, names ------------------------------------------------------

@pytest.mark.parametrize("make", [Chars4, AsciiCjk, lambda: TiktokenCounter("o200k_base")])
def test_cache_hit_on_the_same_long_text(make):
    counter = make()
    text = "a long tool output line\n" * 1000
    first = counter.count(text)
    misses, hits = counter.misses, counter.hits
    assert misses >= 1  # the text, and for tiktoken the chunks it is summed from
    assert counter.count(text) == first
    assert (counter.misses, counter.hits) == (misses, hits + 1)


def test_message_cache_returns_the_same_count():
    counter = TiktokenCounter("o200k_base")
    message = Message(role="user", content="hello " * 300, id="u")
    assert counter.count_message(message) == counter.count_message(message)
    assert counter.misses == 2  # the role and the content, each tokenized once


def test_hf_tokenizer_file_counts_like_the_tokenizers_library():
    from tokenizers import Tokenizer

    path = litellm_tokenizer_dir() / "anthropic_tokenizer.json"
    counter = get_counter(f"hf:{path}")
    reference = Tokenizer.from_file(str(path))
    for text in TEXTS:
        assert counter.count(text) == len(reference.encode(text, add_special_tokens=False).ids)
    assert counter.name == f"hf:{path}" and counter.exact


def test_hf_missing_or_invalid_file(tmp_path):
    with pytest.raises(CtxlabError, match="not found"):
        get_counter(f"hf:{tmp_path / 'missing.json'}")
    bad = tmp_path / "bad.json"
    bad.write_text("{}")
    with pytest.raises(CtxlabError, match="not a Hugging Face tokenizer"):
        get_counter(f"hf:{bad}")


def test_claude_legacy_is_the_litellm_tokenizer():
    counter = get_counter("claude_legacy")
    same = get_counter(f"hf:{litellm_tokenizer_dir() / 'anthropic_tokenizer.json'}")
    assert counter.name == "claude_legacy"
    assert [counter.count(t) for t in TEXTS] == [same.count(t) for t in TEXTS]
    assert counter.count("hello world") == 2


@pytest.mark.parametrize("name", [*list_counters(), "calibrated:cl100k_base"])
def test_count_messages_is_the_sum_of_messages_plus_overhead(name):
    counter = get_counter(name)
    messages = [Message(role="system", content="Be brief.", id="s"), Message(role="user", content="你好 world", id="u"),
                assistant_with_calls(CALL), Message(role="tool", content="print('hi')", id="t", tool_call_id="call_1")]
    total = sum(counter.count_message(m) for m in messages) + counter.overhead(WEATHER_TOOLS)
    assert counter.count_messages(messages, WEATHER_TOOLS) == total
    assert counter.count_messages([m.to_openai() for m in messages], WEATHER_TOOLS) == total


def test_seed_estimators_ignore_tool_definitions_exact_ones_do_not():
    assert all(get_counter(n).overhead(WEATHER_TOOLS) == 0 for n in ("chars4", "chars2", "chars3", "ascii_cjk"))
    assert get_counter("o200k_base").overhead(WEATHER_TOOLS) > get_counter("o200k_base").overhead(None) == 3


def test_get_counter_returns_shared_instances_and_rejects_unknown_names():
    assert get_counter("chars4") is get_counter("chars4")
    counter = Chars4()
    assert get_counter(counter) is counter
    with pytest.raises(UnknownNameError, match="chars4"):
        get_counter("chars5")
    with pytest.raises(TypeError):
        get_counter(42)
